"""JavaScript value semantics that the reference implementation leaks into its formats.

Numbers print as ECMAScript ``Number::toString``, JSON as ``JSON.stringify``, ``toFixed``
rounds exact binary ties upward, ``Number()`` and ``Date.parse`` accept what V8 accepts
(for dates: the ISO 8601 forms). Pure functions only.
"""

from __future__ import annotations

import functools
import itertools
import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    import json
    import re
    from collections.abc import Callable
    from typing import Any

# JS `\s` and the characters `String.prototype.trim` removes: the same set.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
MAX_SAFE_INTEGER = 2**53 - 1


def trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def length(text: str) -> int:
    """String.prototype.length: UTF-16 code units."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def utf16_key(text: str) -> bytes:
    """Sort key of Array.prototype.sort's default order: UTF-16 code units."""
    return text.encode("utf-16-be", errors="surrogatepass")


def number_to_string(value: float | int) -> str:
    """ECMAScript Number::toString(10)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) <= MAX_SAFE_INTEGER:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr() gives the shortest round-trip digits, as V8 does; only the layout differs.
    mantissa, _, exponent_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    fraction = fraction.rstrip("0") if fraction != "0" else ""
    digits = (whole + fraction).lstrip("0")
    exponent = int(exponent_text or 0) - len(fraction)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = exponent + k
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp = ("+" if e >= 0 else "-") + str(abs(e))
    if k == 1:
        return sign + digits + "e" + exp
    return sign + digits[0] + "." + digits[1:] + "e" + exp


def to_fixed(value: float, places: int) -> str:
    """Number.prototype.toFixed: the nearest decimal, exact binary ties rounded up."""
    if math.isnan(value):
        return "NaN"
    if abs(value) >= 1e21 or math.isinf(value):
        return number_to_string(value)
    numerator, denominator = abs(value).as_integer_ratio()
    quotient, remainder = divmod(numerator * 10**places, denominator)
    if 2 * remainder >= denominator:
        quotient += 1
    text = str(quotient).rjust(places + 1, "0")
    if places:
        text = text[:-places] + "." + text[-places:]
    return ("-" + text) if value < 0 else text


@functools.cache
def compiled(source: str) -> re.Pattern[str]:
    """`source` compiled on its first use, and `re` imported then: a plain recall needs no
    pattern, and importing re costs it about 5 ms. Flags go inline: (?s), (?i)."""
    import re

    return re.compile(source)


_LONE_SURROGATE = "[\ud800-\udfff]"


# JSON's escapes: the common ones by str.replace, the other control characters by table.
_STRING_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
_CONTROL_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)} | {0x08: "\\b", 0x0C: "\\f"}


def well_formed(text: str) -> str:
    """JavaScript's `toWellFormed()`: each lone surrogate (JSON's "\\udcff") as U+FFFD, what
    Node prints for it and a UTF-8 encoder (SQLite, hashing) accepts; the tokens and the
    UTF-16 length stay the same."""
    return compiled(_LONE_SURROGATE).sub("\ufffd", text)


def _string(value: str) -> str:
    # What json.dumps(value, ensure_ascii=False) returns, without importing json (its
    # decoder imports re): str.replace runs in C, and most texts need no other escape.
    text = value
    for char, escaped in _STRING_ESCAPES:
        if char in text:
            text = text.replace(char, escaped)
    if not text.isprintable():  # maybe another control character (or only U+2028, NBSP...)
        text = text.translate(_CONTROL_ESCAPES)
    text = f'"{text}"'
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # refuses surrogates, and only them: most texts have none
    except UnicodeEncodeError:
        # Well-formed JSON.stringify escapes a lone surrogate instead of emitting invalid UTF-16.
        return compiled(_LONE_SURROGATE).sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return text


def _scalar(value: Any) -> str | None:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return number_to_string(value)
    return None


def _is_array_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and str(int(key)) == key and int(key) < 2**32 - 1


def property_order(value: dict[str, Any]) -> list[str]:
    """JavaScript's own-key order: array-index keys ascending, then the rest as inserted."""
    if not any(key[:1].isdigit() for key in value):
        return list(value)  # no key can be an array index (nor, unlike int(), a " 1")
    indices = [key for key in value if _is_array_index(key)]
    if not indices:
        return list(value)
    return sorted(indices, key=int) + [key for key in value if not _is_array_index(key)]


def stringify(value: Any) -> str:
    """Compact JSON.stringify(value)."""
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    if isinstance(value, dict):
        items = (_string(k) + ":" + stringify(value[k]) for k in property_order(value))
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(stringify(v) for v in value) + "]"
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def object_of(record: Any) -> dict[str, Any]:
    """A NamedTuple record as the JavaScript object mem prints: its fields in order, each
    named in camelCase (`last_ts` is `lastTs`)."""
    return {_camel(name): value for name, value in zip(record._fields, record, strict=True)}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def stringify_pretty(value: Any, indent: str = "") -> str:
    """JSON.stringify(value, null, 2)."""
    # Strings and plain objects first: they are nearly all of what mem writes.
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is dict and value:
        inner = indent + "  "
        items = [
            inner + _string(k) + ": " + stringify_pretty(value[k], inner)
            for k in property_order(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            inner + _string(k) + ": " + stringify_pretty(value[k], inner)
            for k in property_order(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        items = [inner + stringify_pretty(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON constant {name}")


def _js_int(text: str) -> int | float:
    number = int(text)
    return number if abs(number) <= MAX_SAFE_INTEGER else float(number)


# Far deeper than any record mem or bmad-plus writes, far shallower than Python's recursion
# limit: a line nested deeper (it can arrive through a merge) is a corrupt line, never a
# RecursionError in whatever walks the parsed value next.
MAX_JSON_DEPTH = 100


_JSON_STRING = r'(?s)"(?:[^"\\]|\\.)*"'
_NOT_BRACKET = r"[^\[\]{}]+"


_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JsonTooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")


def json_depth(text: str) -> int:
    """How deeply the arrays and objects of a JSON text nest (brackets inside strings aside)."""
    brackets = compiled(_NOT_BRACKET).sub("", compiled(_JSON_STRING).sub("", text))
    return max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def parse_json(text: str) -> Any:
    """JSON.parse: raises ValueError where JavaScript would throw, and for nesting too deep."""
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and json_depth(text) > MAX_JSON_DEPTH:
        raise JsonTooDeep()
    if text.startswith("\ufeff"):  # as json.loads refuses it
        import json

        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    global _scanned_texts
    if _scanned_texts >= SCANNED_BEFORE_JSON:
        return _json_decoder().decode(text)
    _scanned_texts += 1
    return scan_json(text)


# The scanner below reads a line in about 30 us, json's C decoder in about 5 us once json
# is imported (about 5 ms, for re): a recall shows a few events, a build reads thousands.
SCANNED_BEFORE_JSON = 200
_scanned_texts = 0


def scan_json(text: str) -> Any:
    """JSON.parse by the scanner below, for a text parse_json has checked."""
    try:
        value, end = _scan_value(text, _skip_blanks(text, 0))
    except (ValueError, IndexError, KeyError):
        end = -1
    if end < 0 or _skip_blanks(text, end) != len(text):
        # A text the scanner below does not read (malformed, or of a rare form): json's
        # decoder reads it again and raises what json raises.
        return _json_decoder().decode(text)
    return value


# The scanner: JSON as json's decoder reads it (strict, JavaScript's integers), without
# importing json, whose decoder imports re: a warm recall that shows an event parses its
# line, and those imports would cost it about 5 ms. What it accepts it reads exactly as
# json does (tests/core/test_json_lines.py); anything else goes to json.
_JSON_BLANKS = " \t\n\r"
_JSON_DIGITS = "0123456789"
_JSON_HEX = frozenset("0123456789abcdefABCDEF")
_JSON_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_JSON_WORDS = (("true", True), ("false", False), ("null", None))


def _skip_blanks(text: str, at: int) -> int:
    while at < len(text) and text[at] in _JSON_BLANKS:
        at += 1
    return at


def _scan_value(text: str, at: int) -> tuple[Any, int]:
    first = text[at]
    if first == '"':
        return _scan_string(text, at + 1)
    if first == "{":
        return _scan_object(text, at + 1)
    if first == "[":
        return _scan_array(text, at + 1)
    if first in _JSON_DIGITS or first == "-":
        return _scan_number(text, at)
    for word, value in _JSON_WORDS:
        if text.startswith(word, at):
            return value, at + len(word)
    raise ValueError(at)


def _scan_string(text: str, at: int) -> tuple[str, int]:
    """The string whose opening quote is just before `at`, and the index after its closing one."""
    parts = []
    while True:
        end = text.index('"', at)
        slash = text.find("\\", at, end)
        stop = end if slash < 0 else slash
        chunk = text[at:stop]
        if not chunk.isprintable() and any(char < " " for char in chunk):
            raise ValueError(at)  # strict: a raw control character
        parts.append(chunk)
        if slash < 0:
            return "".join(parts), end + 1
        code = text[slash + 1]
        if code != "u":
            parts.append(_JSON_ESCAPES[code])  # KeyError: not an escape JSON has
            at = slash + 2
            continue
        unit = _hex4(text, slash + 2)
        at = slash + 6
        if 0xD800 <= unit <= 0xDBFF and text.startswith("\\u", at):
            low = _hex4(text, at + 2)
            if 0xDC00 <= low <= 0xDFFF:  # a surrogate pair: one character, as json joins it
                unit = 0x10000 + ((unit - 0xD800) << 10 | (low - 0xDC00))
                at += 6
        parts.append(chr(unit))


def _hex4(text: str, at: int) -> int:
    digits = text[at : at + 4]
    if len(digits) != 4 or not _JSON_HEX.issuperset(digits):
        raise ValueError(at)
    return int(digits, 16)


def _scan_number(text: str, at: int) -> tuple[int | float, int]:
    start = at
    if text[at] == "-":
        at += 1
    if text[at] == "0":
        at += 1
    else:
        at = _scan_digits(text, at)
    integer = True
    if text.startswith(".", at):
        at = _scan_digits(text, at + 1)
        integer = False
    if at < len(text) and text[at] in "eE":
        at += 1
        if at < len(text) and text[at] in "+-":
            at += 1
        at = _scan_digits(text, at)
        integer = False
    number = text[start:at]
    return (_js_int(number) if integer else float(number)), at


def _scan_digits(text: str, at: int) -> int:
    """The index after the run of ASCII digits at `at`; ValueError where there is none."""
    start = at
    while at < len(text) and text[at] in _JSON_DIGITS:
        at += 1
    if at == start:
        raise ValueError(at)
    return at


def _scan_array(text: str, at: int) -> tuple[list[Any], int]:
    values: list[Any] = []
    at = _skip_blanks(text, at)
    if text[at] == "]":
        return values, at + 1
    while True:
        value, at = _scan_value(text, at)
        values.append(value)
        ended, at = _after_item(text, at, "]")
        if ended:
            return values, at


def _scan_object(text: str, at: int) -> tuple[dict[str, Any], int]:
    members: dict[str, Any] = {}
    at = _skip_blanks(text, at)
    if text[at] == "}":
        return members, at + 1
    while True:
        if text[at] != '"':
            raise ValueError(at)
        key, at = _scan_string(text, at + 1)
        at = _skip_blanks(text, at)
        if text[at] != ":":
            raise ValueError(at)
        members[key], at = _scan_value(text, _skip_blanks(text, at + 1))
        ended, at = _after_item(text, at, "}")
        if ended:
            return members, at


def _after_item(text: str, at: int, closer: str) -> tuple[bool, int]:
    """After an array's or an object's item: whether `closer` ended it, and the index after
    the closer or of the next item."""
    at = _skip_blanks(text, at)
    if text[at] == closer:
        return True, at + 1
    if text[at] != ",":
        raise ValueError(at)
    return False, _skip_blanks(text, at + 1)


@functools.cache
def _json_decoder() -> json.JSONDecoder:
    """One decoder for every call: json.loads with hooks builds a new one each time."""
    import json

    return json.JSONDecoder(parse_constant=_reject_constant, parse_int=_js_int)


_DECIMAL_LITERAL = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_RADIX_LITERAL = r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)"


_RADIX = {"x": 16, "o": 8, "b": 2}


def to_number(text: str) -> float:
    """Number(string)."""
    body = trim(text)
    if body == "":
        return 0.0
    if body in ("Infinity", "+Infinity"):
        return math.inf
    if body == "-Infinity":
        return -math.inf
    if compiled(_DECIMAL_LITERAL).fullmatch(body):
        return float(body)
    radix = compiled(_RADIX_LITERAL).fullmatch(body)
    if radix:
        return float(int(radix.group(1)[1:], _RADIX[radix.group(1)[0].lower()]))
    return math.nan


_ISO_DATE = (
    r"(?i)(?P<year>[+-]\d{6}|\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<frac>\d+))?)?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?"
)


def _iso_string_fields(text: str) -> tuple[Any, ...] | None:
    """_ISO_DATE's groups of a UTC date-time to the second or millisecond, as toISOString
    writes it (2026-06-01T12:00:00.000Z), read without `re`: the "now" of every recall has
    that form. None for any other text."""
    size = len(text)
    if size not in (20, 24) or not text.isascii() or text[-1] not in "Zz":
        return None
    if text[4] + text[7] + text[13] + text[16] != "--::" or text[10] not in "Tt ":
        return None
    digits = [text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19]]
    if size == 24:
        if text[19] not in ".,":
            return None
        digits.append(text[20:23])
    if not all(field.isdigit() for field in digits):
        return None
    return (*digits, None, text[-1]) if size == 20 else (*digits, text[-1])


class ParsedDate:
    """Epoch milliseconds, and whether the text named no zone (JavaScript reads it as local)."""

    __slots__ = ("ms", "local")

    def __init__(self, ms: float, local: bool) -> None:
        self.ms = ms
        self.local = local


def instant_ms(
    ms: float | None, local: bool | int, local_offset_ms: Callable[[float], float]
) -> float | None:
    """The instant of a date stamped `ms`: a date written without a zone (`local`) is local
    wall-clock time, as JavaScript reads it, so the local offset at that moment moves it.
    The offset comes from the caller (mem.clock.local_offset_ms): this module is pure."""
    if ms is None or not local:
        return ms
    return ms + local_offset_ms(ms)


def parse_date(text: str) -> ParsedDate | None:
    """Date.parse for the ECMAScript date-time string format; None where it gives NaN."""
    text = trim(text)
    fields = _iso_string_fields(text)
    if fields is None:
        match = compiled(_ISO_DATE).fullmatch(text)
        if not match:
            return None
        fields = match.groups()
    year_text, month_text, day_text, hour_text, minute_text, second_text, frac, zone = fields
    year = int(year_text)
    month = int(month_text or 1)
    day = int(day_text or 1)
    hour = int(hour_text or 0)
    minute = int(minute_text or 0)
    second = int(second_text or 0)
    millis = int((frac or "0")[:3].ljust(3, "0"))
    if year_text == "-000000" or not (1 <= month <= 12 and 0 <= minute <= 59):
        return None
    if not (0 <= second <= 59 and (hour <= 23 or (hour == 24 and minute == second == millis == 0))):
        return None
    if not 1 <= day <= _days_in_month(year, month):
        return None
    days = _days_from_civil(year, month, day)
    ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    has_time = hour_text is not None
    if zone:
        if zone.upper() != "Z":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            ms -= sign * (int(digits[:2]) * 60 + int(digits[2:])) * 60_000
        return ParsedDate(float(ms), False)
    return ParsedDate(float(ms), has_time)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    # Howard Hinnant's algorithm: days since 1970-01-01 in the proleptic Gregorian calendar.
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def iso_from_ms(ms: float) -> str:
    """Date.prototype.toISOString for years 0..9999."""
    days, remainder = divmod(int(ms), 86_400_000)
    year, month, day = _civil_from_days(days)
    hours, remainder = divmod(remainder, 3_600_000)
    minutes, remainder = divmod(remainder, 60_000)
    seconds, millis = divmod(remainder, 1000)
    return f"{year:04d}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"


def _civil_from_days(days: int) -> tuple[int, int, int]:
    # The inverse of _days_from_civil (Howard Hinnant's algorithm).
    days += 719468
    era = (days if days >= 0 else days - 146096) // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day
