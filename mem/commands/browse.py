"""`mem browse`: the index in a web browser, through Datasette, read-only, on 127.0.0.1 only.

Browse syncs the index, copies it with the review tables added (mem.index.browse_copy:
why a copy), and serves the copy immutable, so no statement can write through it and a
recall that re-syncs meanwhile never disturbs it. What the pages show is the files as
they were when browse started; starting it again shows them as they are now.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from mem import index
from mem.core.prose import extras
from mem.core.rules.memory import Memory, MemoryAudit
from mem.core.text import schema_docs
from mem.domain import (
    evidence_audit,
    evidence_records,
    lifecycle_events,
    memories,
    outcome_receipts,
)
from mem.errors import MemError
from mem.files import brain as brains
from mem.files import gitrepo
from mem.index import browse_copy
from mem.render import datasette_metadata

HOST = "127.0.0.1"  # never another interface: the pages show a project's memory unauthenticated
DEFAULT_PORT = 8001  # Datasette's own default
DATABASE = "project"
PORTFOLIO_DATABASE = "portfolio"
# The SQLite URI Datasette builds from the copy's path cannot carry these.
URI_UNSAFE = "?#%"


class Served(NamedTuple):
    url: str
    root: str  # the project, or the portfolio's brain
    portfolio: bool
    projects: int
    notes: int
    events: int
    problems: list[tuple[str, str]]  # (where, message), for warnings


def parse_port(text: str | None) -> int:
    if text is None:
        return DEFAULT_PORT
    stripped = text.strip()
    if not stripped.isdigit() or int(stripped) > 65535:
        raise MemError("--port must be an integer from 0 to 65535 (0: any free port)")
    return int(stripped)


def browse(
    root: str,
    port: str | None,
    on_ready: Callable[[Served], None],
    *,
    portfolio: bool = False,
    explicit: str | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> None:
    """`mem browse [--portfolio [--brain PATH]] [--port N]`: serve until SIGINT or SIGTERM."""
    port_number = parse_port(port)
    if not portfolio:
        if explicit is not None:
            raise MemError("--brain needs --portfolio.")
        serve(root, port_number, on_ready)
        return
    brain_dir = brains.portfolio_brain(root, explicit)
    serve(root, port_number, on_ready, brain=brain_dir, progress=progress)


def serve(
    root: str,
    port: int,
    on_ready: Callable[[Served], None],
    *,
    brain: str | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> None:
    """Serve the project's index, or with `brain` its portfolio index, until SIGINT or SIGTERM.

    The copy is removed on the way out, whatever stops it.
    """
    datasette_class = _datasette()
    _guard_connections()
    database = DATABASE if brain is None else PORTFOLIO_DATABASE
    with (
        _terminate_as_interrupt(),
        _listen(port) as listener,
        browse_copy.scratch_directory() as scratch,
    ):
        path = os.path.join(scratch, f"{database}.sqlite")
        if any(char in path for char in URI_UNSAFE):
            raise MemError(
                f"The temporary directory {scratch} holds a character SQLite cannot open"
                " ('?', '#' or '%'); set TMPDIR to another directory."
            )
        counts, review = browse_copy.make(
            path, gather_reviews, root=root, brain=brain, progress=progress
        )
        shown = brain or root
        bound = listener.getsockname()[1]
        app = datasette_class(
            immutables=[path],
            metadata=metadata(
                shown, portfolio=brain is not None, notes=counts.notes, events=counts.events
            ),
        ).app()
        server = _server(_local_hosts_only(app, bound))
        with _stop_on_signals(server):
            url = f"http://{HOST}:{bound}/{database}"
            problems = [
                (f"{problem.project}: {problem.part}" if brain else problem.part, problem.problem)
                for problem in review.problems
            ]
            on_ready(Served(url, shown, brain is not None, *counts, problems))
            _run(server, listener)


def metadata(
    root: str, *, portfolio: bool = False, notes: int | None = None, events: int | None = None
) -> dict[str, Any]:
    """Datasette's metadata for a snapshot; descriptions from the schemas' comments. Its page
    lists the memory views and queries first (with the snapshot's counts of notes and events)
    and hides the index's own tables."""
    rows = {"notes": notes, "events": events}
    what = "portfolio index of the brain" if portfolio else "memory index of"
    return datasette_metadata.build(
        title=f"mem: {os.path.basename(root) or root}" + (" (portfolio)" if portfolio else ""),
        description=(
            f"The {what} {root}, read-only, as it was when `mem browse` started."
            " Restart `mem browse` to see later changes."
        ),
        database=PORTFOLIO_DATABASE if portfolio else DATABASE,
        docs={
            **schema_docs.describe(index.schema()),
            **schema_docs.describe(browse_copy.BROWSE_SCHEMA),
        },
        queries=browse_copy.canned_queries(portfolio=portfolio),
        searchable=browse_copy.SEARCHABLE,
        label_columns=browse_copy.LABEL_COLUMNS,
        hidden=browse_copy.INTERNAL_TABLES,
        start=[(name, title, rows.get(name)) for name, title in browse_copy.START],
    )


def _datasette() -> Any:
    try:
        from datasette.app import Datasette
    except ImportError:
        raise MemError(
            f"Datasette is not installed. Install the web extra: {extras.install_hint('web')}"
        ) from None
    return Datasette


def _guard_connections() -> None:
    """Register, once, a Datasette plugin that takes `fts3_tokenizer()` off every connection.

    With one argument it returns the tokenizer's address in the process's memory, which
    defeats address randomisation for anyone who can type SQL into a page; with two it
    installs a tokenizer from such an address. Nobody browsing memory needs it, and Python
    3.11 cannot switch it off (`Connection.setconfig` is 3.12), so each connection gets a
    function of the same name and arity, which SQLite prefers to its built-in one. Datasette
    lists its plugins by module name, hence a module.
    """
    from datasette import hookimpl
    from datasette.plugins import pm

    if pm.has_plugin(SQL_GUARD):
        return
    plugin = types.ModuleType(SQL_GUARD)
    plugin.prepare_connection = hookimpl(_without_fts3_tokenizer)  # type: ignore[attr-defined]
    pm.register(plugin, name=SQL_GUARD)


SQL_GUARD = "mem_browse_sql_guard"


def _without_fts3_tokenizer(conn: Any) -> None:
    for arity in (1, 2):
        conn.create_function("fts3_tokenizer", arity, _refuse_fts3_tokenizer)


def _refuse_fts3_tokenizer(*args: object) -> None:
    raise ValueError("fts3_tokenizer() is disabled in mem browse")


def _listen(port: int) -> socket.socket:
    try:
        return socket.create_server((HOST, port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise MemError(
                f"{HOST}:{port} is already in use; choose another --port (0: any free port)."
            ) from None
        raise MemError(f"Cannot listen on {HOST}:{port}: {error.strerror}.") from None


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Until serving starts, SIGTERM unwinds like Ctrl-C, so the copy is still removed."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _local_hosts_only(app: Any, port: int) -> Any:
    """Answer only requests addressed to this host by name or loopback address.

    Binding to 127.0.0.1 keeps other machines out, but a web page open in the user's own
    browser could still reach the port through a DNS name rebound to 127.0.0.1; such a
    request names that other host in its Host header and is refused.
    """
    allowed = {f"{host}:{port}".encode() for host in (HOST, "localhost")}
    refusal = b"mem browse answers only requests addressed to 127.0.0.1 or localhost.\n"

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"host") not in allowed:
            headers = [(b"content-type", b"text/plain; charset=utf-8")]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": refusal})
            return
        await app(scope, receive, send)

    return guarded


def _server(app: Any) -> Any:
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))


@contextlib.contextmanager
def _stop_on_signals(server: Any) -> Iterator[None]:
    """While serving, SIGINT and SIGTERM ask the server to stop; a second SIGINT forces it."""

    def stop(signum: int, frame: object) -> None:
        if server.should_exit:
            server.force_exit = True  # do not wait for open connections any longer
        server.should_exit = True

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _run(server: Any, listener: socket.socket) -> None:
    """Serve from a worker thread until the server stops.

    In the main thread, uvicorn would install its own handlers and re-raise the signal
    after its shutdown, and a SIGTERM would then end the process before the copy is removed.
    """
    with ThreadPoolExecutor(1, thread_name_prefix="mem-browse") as pool:
        running = pool.submit(server.run, sockets=[listener])
        while True:
            try:
                running.result(timeout=0.5)  # re-raises whatever stopped the server
                return
            except TimeoutError:
                continue


def gather_reviews(roots: list[browse_copy.Root]) -> browse_copy.Review:
    """The review of every project, in the order given."""
    merged = browse_copy.Review([], [], [], [])
    for root in roots:
        review = gather_review(root)
        for whole, part in zip(merged, review, strict=True):
            whole.extend(part)  # type: ignore[attr-defined]
    return merged


def gather_review(root: browse_copy.Root) -> browse_copy.Review:
    """What `mem context --with-evidence` and `mem outcomes` say now, part by part.

    A damaged store stops its own command; here it only leaves its part empty (and is
    reported), so the rest of the index can still be browsed.
    """
    project = root.path
    problems: list[browse_copy.Problem] = []
    try:
        current = memories.load(project)
    except MemError as error:
        problems.append(browse_copy.Problem(project, "memories", str(error)))
        current = []
    try:
        statuses: dict[tuple[str, str], lifecycle_events.Status] | None = lifecycle_events.statuses(
            lifecycle_events.read_events(project), current
        )
    except MemError as error:
        problems.append(browse_copy.Problem(project, "lifecycle", str(error)))
        statuses = None
    try:
        audits = _audits(project, current)
    except MemError as error:
        problems.append(browse_copy.Problem(project, "evidence", str(error)))
        audits = {}
    try:
        receipts = outcome_receipts.inspect(project)
    except MemError as error:
        problems.append(browse_copy.Problem(project, "outcomes", str(error)))
        receipts = []
    rows = []
    sources = []
    for memory in current:
        key = (memory.id, memory.revision)
        status = statuses[key] if statuses is not None else None
        found = audits.get(key)
        rows.append(
            browse_copy.MemoryRow(
                project,
                root.name,
                memory.id,
                memory.file,
                memory.ordinal,
                memory.heading,
                memory.revision,
                status.status if status else None,
                status.superseded_by if status else None,
                status.event["ts"] if status and status.event else None,
                status.reason if status else None,
                found.status if found else None,
            )
        )
        for source in found.sources if found else []:
            sources.append(
                browse_copy.SourceRow(
                    project,
                    memory.id,
                    memory.revision,
                    source.path,
                    source.status,
                    source.reason,
                    source.recorded_sha256,
                    source.current_sha256,
                )
            )
    eligibility = [
        browse_copy.EligibilityRow(
            project,
            receipt["id"],
            int(receipt["eligible"]),
            receipt["reason"] or "accepted-current",
        )
        for receipt in receipts
    ]
    return browse_copy.Review(rows, sources, eligibility, problems)


def _audits(root: str, current: list[Memory]) -> dict[tuple[str, str], MemoryAudit]:
    """`mem audit`'s status of each memory that has evidence (of any revision)."""
    records = evidence_records.read_records(root)
    if not records:
        return {}
    identity = gitrepo.identity(root)
    with_evidence = {record["memory"]["id"] for record in records}
    return {
        (memory.id, memory.revision): evidence_audit.audit_memory(memory, records, identity, root)
        for memory in current
        if memory.id in with_evidence
    }
