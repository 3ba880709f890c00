"""The `mem` executable: a plain recall takes the click-free path, everything else goes to click."""

from __future__ import annotations

import codecs
import gc
import io
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def _escape(error: UnicodeError) -> tuple[str, int]:
    """A character the stream cannot encode becomes `\\uXXXX` (JSON output stays valid JSON)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    data = text.encode("utf-16-be", "surrogatepass")
    units = (int.from_bytes(data[index : index + 2], "big") for index in range(0, len(data), 2))
    return "".join(f"\\u{unit:04x}" for unit in units), error.end


def _replace(error: UnicodeError) -> tuple[bytes, int]:
    """A lone surrogate (all a UTF-8 stream cannot encode) becomes U+FFFD, as Node writes it
    (as bytes: the UTF-8 encoder takes only ASCII text from a handler)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "\ufffd".encode() * (error.end - error.start), error.end


def escape_unencodable() -> None:
    """Output to a stream that cannot encode a character escapes it instead of crashing."""
    codecs.register_error("mem.escape", _escape)
    codecs.register_error("mem.replace", _replace)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in (
            "strict",
            "backslashreplace",
            "surrogateescape",
        ):
            utf8 = codecs.lookup(stream.encoding).name == "utf-8"
            stream.reconfigure(errors="mem.replace" if utf8 else "mem.escape")


def main() -> NoReturn:
    try:
        _main()
    except KeyboardInterrupt:
        # Ctrl-C: the blocks it left have cleaned up (indexes closed, copies stopped). No
        # traceback; the process still ends by the signal, so a calling shell loop stops.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        raise SystemExit(130) from None  # where the signal does not end it (Windows)


def _main() -> NoReturn:
    # Loading the modules allocates only what lives as long as the process; the collector's
    # passes over it (and again at exit) cost a warm recall about 8 % and free nothing. So
    # even the fast path's modules are imported only once it is off.
    gc.disable()
    from mem.cli.fast import plain_recall, recall_output

    escape_unencodable()
    _refuse_undecodable_arguments(sys.argv[1:])
    if "_MEM_COMPLETE" in os.environ:
        gc.enable()
        from mem.cli import app

        app.complete(os.environ["_MEM_COMPLETE"])
    if sys.argv[1:2] == ["hook"]:  # a coding agent's host, on every prompt: no click either
        from mem.cli import hook_path

        hooked = hook_path.plain_hook(sys.argv[1:])
        if hooked is not None:
            hook_path.answer(hooked)
    parsed = plain_recall(sys.argv[1:])
    if parsed is None:
        gc.enable()
        from mem.cli import app

        app.main()
    from mem.commands import recall  # noqa: F401 - loaded now, so that the freeze keeps it
    from mem.errors import MemError
    from mem.render import action_views

    # What exists now is never garbage: later collections (and the one at exit) skip it.
    gc.freeze()
    gc.enable()

    words, as_json, options = parsed
    if sys.stderr.isatty():
        from mem.cli import progress

        progress.show_builds("recall")
    try:
        output = recall_output(words, as_json, options)
    except MemError as error:
        stream, text = action_views.action_error("recall", str(error), as_json=as_json)
        (sys.stdout if stream == "stdout" else sys.stderr).write(text)
        sys.exit(1)
    sys.stdout.write(output)
    _exit_at_once(0)


def _undecodable(argument: str) -> bool:
    # Python keeps bytes that are not UTF-8 as lone surrogates (surrogateescape): stored,
    # they would be "\\udcff" in a store, and no UTF-8 encoder (hashing, SQLite) takes them.
    if argument.isascii():
        return False
    try:
        argument.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# Paths are left to safe_paths, whose message names the path itself (D8): a directory
# name that is not UTF-8 is a path problem, not a text one.
PATH_OPTIONS = ("-d", "--directory", "--brain")


def _is_path(arguments: list[str], position: int) -> bool:
    argument = arguments[position]
    if argument.startswith(tuple(f"{option}=" for option in PATH_OPTIONS if option[1] == "-")):
        return True
    if position > 0 and arguments[position - 1] in PATH_OPTIONS:
        return True
    return arguments[:2] == ["portfolio", "add"] and not argument.startswith("-")


def _refuse_undecodable_arguments(arguments: list[str]) -> None:
    """An argument that is not valid UTF-8 is refused, naming its option, before any work."""
    for position, argument in enumerate(arguments):
        if not _undecodable(argument) or _is_path(arguments, position):
            continue
        action = arguments[0] if position > 0 and not _undecodable(arguments[0]) else "mem"
        if (
            argument.startswith("--")
            and "=" in argument
            and not _undecodable(argument.split("=")[0])
        ):
            name = argument.split("=", 1)[0]
        elif position > 0 and arguments[position - 1].startswith("-"):
            name = arguments[position - 1]
        else:
            name = "the query" if action == "recall" else f"argument {position + 1}"
        message = f"{name} is not valid UTF-8; pass text, not raw bytes"
        if "--json" in arguments:
            from mem.render import action_views

            sys.stdout.write(action_views.action_error(action, message, as_json=True)[1])
        else:
            prefix = "mem" if action == "mem" else f"mem {action}"
            sys.stderr.write(f"{prefix}: {message}\n")
        sys.exit(1)


def _exit_at_once(status: int) -> NoReturn:
    """Exit without tearing the interpreter down: a plain recall has closed its index, holds
    no lock and registers nothing to run at exit, and the teardown costs it about 2 ms."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe or a full disk: let the interpreter report it as always
        sys.exit(status)
    os._exit(status)
