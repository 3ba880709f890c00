"""The per-machine record of the hooks: what was injected where, and why a hook stayed silent.

It lives in the user's state directory, never in a project: an injection is a fact about
this machine's sessions, not about the project's memory, and a hook must not dirty a work
tree. `$MEM_STATE_DIR`, else `$XDG_STATE_HOME/mem`, else `~/.local/state/mem`:

    injections.ndjson      one line per injection and per `mem write` made in a session
    hook.log               one line per hook that answered nothing because something failed
    sessions/<key>.ids     the memories already injected in one session (id, revision and
                           the claim of the hook that injected it)
    inbox/<key>.ndjson     a project's imported candidate notes and what became of each

Lines are appended with one `write` each (O_APPEND), so concurrent hooks never interleave
them; nothing here takes the project's writer lock.
"""

from __future__ import annotations

import hashlib
import os
import time

from mem.core.javascript import js
from mem.errors import MemError

INJECTIONS = "injections.ndjson"
HOOK_LOG = "hook.log"
SESSIONS = "sessions"
INBOX = "inbox"
# A session's file is kept this long after its last injection, then removed.
SESSION_KEPT_SECONDS = 14 * 24 * 3600
# The log is read whole by `mem injections`; past this it is cut to its newer half.
LOG_LIMIT = 32 * 1024 * 1024


def state_dir() -> str:
    explicit = os.environ.get("MEM_STATE_DIR")
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg:
        return os.path.join(xdg, "mem")
    return os.path.join(os.path.expanduser("~"), ".local", "state", "mem")


def _append(relative: str, line: str) -> None:
    path = os.path.join(state_dir(), relative)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    data = line.encode("utf-8")
    try:
        size = os.fstat(fd).st_size
        try:
            written = os.write(fd, data)
        except OSError:
            os.ftruncate(fd, size)  # no torn line: the next append would join it
            raise
        if written != len(data):
            os.ftruncate(fd, size)
            raise OSError(f"{path}: only {written} of {len(data)} bytes could be written")
    finally:
        os.close(fd)


def append_record(line: str) -> None:
    """Append one NDJSON line (with its newline) to the injection log."""
    _trim_log()
    _append(INJECTIONS, line)


def append_hook_problem(line: str) -> None:
    """Record why a hook answered nothing. Best effort: a hook fails open even here."""
    try:
        _append(HOOK_LOG, line)
    except OSError:
        pass  # no writable state directory: the hook still answers (nothing), as it must


def read_records() -> str:
    """The injection log's text ("" when there is none)."""
    path = os.path.join(state_dir(), INJECTIONS)
    try:
        with open(path, "rb") as handle:
            data = handle.read(LOG_LIMIT + 1)
    except FileNotFoundError:
        return ""
    except OSError as error:
        raise MemError(f"Cannot read {path}: {error.strerror}.") from None
    return data.decode("utf-8", errors="replace")


def _trim_log() -> None:
    """Keep the log readable in one go: past LOG_LIMIT, only its newer half stays."""
    path = os.path.join(state_dir(), INJECTIONS)
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return
    if size <= LOG_LIMIT:
        return
    with open(path, "rb") as handle:
        handle.seek(size - LOG_LIMIT // 2)
        kept = handle.read()
    kept = kept[kept.find(b"\n") + 1 :]
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "wb") as handle:
        handle.write(kept)
    os.replace(temp, path)


def _session_file(host: str, session: str) -> str:
    # surrogatepass: a session id is the host's JSON string, which may hold a lone surrogate
    key = hashlib.sha256(f"{host}\0{session}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{SESSIONS}/{key}.ids"


def injected_in_session(host: str, session: str) -> set[str]:
    """`<id> <revision>` of every memory already injected in this session."""
    return set(_first_claims(host, session))


def _first_claims(host: str, session: str) -> dict[str, str]:
    """Each `<id> <revision>` of the session's file with the claim of its first line."""
    path = os.path.join(state_dir(), _session_file(host, session))
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().split("\n")
    except FileNotFoundError:
        return {}
    first: dict[str, str] = {}
    for line in lines:
        parts = line.split(" ")
        if len(parts) >= 2:
            first.setdefault(f"{parts[0]} {parts[1]}", " ".join(parts[2:]))
    return first


def claim_injected(host: str, session: str, keys: list[str]) -> list[str]:
    """The keys (`<id> <revision>`) this hook is the first to inject in the session.

    "Once per session" must hold for hooks running at once: each appends its keys with
    its own claim in one O_APPEND write, so the lines never interleave, and the file's
    first line for a key says which hook injected it; a hook that came second leaves the
    memory out. No lock: a hook never waits on another.
    """
    if not keys:
        return []
    claim = os.urandom(8).hex()
    _append(_session_file(host, session), "".join(f"{key} {claim}\n" for key in keys))
    first = _first_claims(host, session)
    return [key for key in keys if first.get(key) == claim]


def forget_old_sessions(now_seconds: float | None = None) -> None:
    """Remove the session files nobody added to for SESSION_KEPT_SECONDS."""
    folder = os.path.join(state_dir(), SESSIONS)
    limit = (time.time() if now_seconds is None else now_seconds) - SESSION_KEPT_SECONDS
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < limit:
                os.unlink(path)
        except FileNotFoundError:
            pass  # another hook removed it first


def forget_session(host: str, session: str) -> None:
    """Start a session's record of injected memories afresh (its context was cleared)."""
    try:
        os.unlink(os.path.join(state_dir(), _session_file(host, session)))
    except FileNotFoundError:
        pass


def session_from_environment() -> tuple[str | None, str | None]:
    """(session id, host) of the agent session this process runs in, as far as it is told:
    MEM_SESSION_ID (a person's or a script's) first, then what each host sets in the
    commands it runs (Bash tools, MCP servers)."""
    found = [
        (os.environ.get("MEM_SESSION_ID"), None),
        (os.environ.get("CLAUDE_CODE_SESSION_ID"), "claude-code"),
        (os.environ.get("CODEX_THREAD_ID"), "codex"),
        (os.environ.get("GEMINI_SESSION_ID"), "gemini"),
    ]
    for session, host in found:
        if session:
            return session, host
    return None, None


def record_write(
    root: str, now: str, session: str, host: str | None, event_id: str, outcome: str | None
) -> None:
    """Note that a journal event was written inside a session: its outcome ends the session."""
    record = {
        "ts": now,
        "kind": "write",
        "host": host,
        "session": session,
        "project": root,
        "event": event_id,
        "outcome": outcome,
    }
    append_record(js.stringify(record) + "\n")


def _inbox_file(root: str) -> str:
    key = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return f"{INBOX}/{key}.ndjson"


def inbox_path(root: str) -> str:
    return os.path.join(state_dir(), _inbox_file(root))


def append_inbox(root: str, lines: str) -> None:
    """Append NDJSON lines (each with its newline) to the project's inbox, in one write."""
    if lines:
        try:
            _append(_inbox_file(root), lines)
        except OSError as error:
            raise MemError(
                f"Cannot write the inbox {inbox_path(root)}: {error.strerror or error}."
            ) from None


def read_inbox(root: str) -> str:
    """The project's inbox log ("" when there is none)."""
    path = inbox_path(root)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return ""
    except OSError as error:
        raise MemError(f"Cannot read the inbox {path}: {error.strerror}.") from None
    return data.decode("utf-8", errors="replace")
