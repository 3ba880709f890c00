"""commander's reading of `bmad-plus mem <action> [query...]`, without click.

The five legacy actions keep the reference's command line to the letter, usage errors
included, so their arguments are read here as commander 14 reads them (its
`parseOptions`, `_parseCommand` and `suggestSimilar`): options anywhere, a known option's
value taken whatever it looks like, `--` ending the options, negative numbers as words,
the first unknown option turning every later argument unknown, and the checks in
commander's order. The fast path and the click CLI both read through `parse`, so a
plain recall and a full one cannot disagree.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

HELP = ("-h", "--help")
# Matched (and `re` imported) only for an argument that may be one: a plain recall's never are.
NEGATIVE_NUMBER = r"-([0-9]+|[0-9]*\.[0-9]+)(e[+-]?[0-9]+)?"
LONG_WITH_VALUE = r"--[^=]+="
MAX_DISTANCE = 3
MIN_SIMILARITY = 0.4


class Option:
    """An option as commander reads it."""

    __slots__ = ("names", "takes_value", "flags", "destination", "repeatable")

    def __init__(
        self,
        names: tuple[str, ...],
        takes_value: bool,
        flags: str,
        destination: str,
        repeatable: bool = False,
    ) -> None:
        self.names = names  # ("-d", "--directory")
        self.takes_value = takes_value
        self.flags = flags  # as commander names it in errors: "-d, --directory <path>"
        self.destination = destination
        self.repeatable = repeatable  # mem's own options only; commander keeps the last value


Value = str | bool | list[str]


class Parsed:
    """An argument list as commander reads it."""

    __slots__ = ("operands", "values", "unknown", "error", "first_operand_at")

    def __init__(
        self,
        operands: list[str],
        values: dict[str, Value],
        unknown: list[str],
        error: str | None,
        first_operand_at: int | None,
    ) -> None:
        self.operands = operands
        self.values = values  # destination -> value: True for a flag, a list if repeatable
        self.unknown = unknown  # the first unknown option and every argument after it
        self.error = error  # commander stops at an option missing its value
        self.first_operand_at = first_operand_at  # where the action stood among the arguments


def parse(args: Sequence[str], table: Iterable[Option]) -> Parsed:
    """commander's `parseOptions` for a command without subcommands."""
    by_name = {name: option for option in table for name in option.names}
    operands: list[str] = []
    unknown: list[str] = []
    values: dict[str, Value] = {}
    destination = operands
    first_at: int | None = None
    position = 0
    group: str | None = None  # the rest of a short-flag cluster such as -ab
    while position < len(args) or group is not None:
        whole = group is None  # not the rest of a short-flag cluster
        if group is not None:
            arg, group = group, None
        else:
            arg = args[position]
            position += 1
        if arg == "--":
            if destination is unknown:
                destination.append(arg)
            elif not operands and position < len(args):
                first_at = position
            destination.extend(args[position:])
            break
        option = by_name.get(arg) if _maybe_option(arg) else None
        if option is not None:
            if option.takes_value:
                if position == len(args):
                    missing = f"option '{option.flags}' argument missing"
                    return Parsed(operands, values, unknown, missing, first_at)
                _store(values, option, args[position])
                position += 1
            else:
                values[option.destination] = True
            continue
        if len(arg) > 2 and arg[0] == "-" and arg[1] != "-":
            option = by_name.get(arg[:2])
            if option is not None:
                if option.takes_value:
                    _store(values, option, arg[2:])
                else:
                    values[option.destination] = True
                    group = "-" + arg[2:]
                continue
        if arg.startswith("--") and _matches(LONG_WITH_VALUE, arg):
            name, _, value = arg.partition("=")
            option = by_name.get(name)
            if option is not None and option.takes_value:
                _store(values, option, value)
                continue
        negative_number = _maybe_option(arg) and _matches(NEGATIVE_NUMBER, arg, whole=True)
        if destination is operands and _maybe_option(arg) and not negative_number:
            destination = unknown
        if destination is operands and not operands and whole:
            first_at = position - 1
        destination.append(arg)
    return Parsed(operands, values, unknown, None, first_at)


def _store(values: dict[str, Value], option: Option, value: str) -> None:
    if option.repeatable:
        previous = values.get(option.destination)
        values[option.destination] = [*(previous if isinstance(previous, list) else []), value]
    else:
        values[option.destination] = value


def _matches(pattern: str, arg: str, whole: bool = False) -> bool:
    import re

    return (re.fullmatch if whole else re.match)(pattern, arg) is not None


def _maybe_option(arg: str) -> bool:
    return len(arg) > 1 and arg[0] == "-"


def wants_help(parsed: Parsed) -> bool:
    """commander shows help when a help flag is among the unknown arguments."""
    return any(arg in HELP for arg in parsed.unknown)


def usage_error(parsed: Parsed, candidates: Iterable[str]) -> str | None:
    """The message of the first usage error after help was ruled out, else None."""
    if parsed.error is not None:
        return parsed.error
    if parsed.unknown:
        flag = parsed.unknown[0]
        hint = suggestion(flag, candidates) if flag.startswith("--") else ""
        return f"unknown option '{flag}'{hint}"
    return None


def suggestion(word: str, candidates: Iterable[str]) -> str:
    """commander's `suggestSimilar`: the closest candidates, or nothing."""
    searching_options = word.startswith("--")
    if searching_options:
        word = word[2:]
    unique = list(dict.fromkeys(candidates))
    if searching_options:
        unique = [candidate[2:] for candidate in unique]
    similar: list[str] = []
    best = MAX_DISTANCE
    for candidate in unique:
        if _js_length(candidate) <= 1:
            continue
        distance = _edit_distance(_utf16(word), _utf16(candidate))
        length = max(_js_length(word), _js_length(candidate))
        if (length - distance) / length > MIN_SIMILARITY:
            if distance < best:
                best = distance
                similar = [candidate]
            elif distance == best:
                similar.append(candidate)
    similar.sort()
    if searching_options:
        similar = [f"--{candidate}" for candidate in similar]
    if len(similar) > 1:
        return f"\n(Did you mean one of {', '.join(similar)}?)"
    if similar:
        return f"\n(Did you mean {similar[0]}?)"
    return ""


def _utf16(text: str) -> list[int]:
    """JavaScript strings are UTF-16 code units; distances and lengths count those."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[index : index + 2], "little") for index in range(0, len(data), 2)]


def _js_length(text: str) -> int:
    return len(_utf16(text))


def _edit_distance(a: list[int], b: list[int]) -> int:
    """Optimal string alignment distance, as commander computes it."""
    if abs(len(a) - len(b)) > MAX_DISTANCE:
        return max(len(a), len(b))
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for j in range(1, len(b) + 1):
        for i in range(1, len(a) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]
