"""The rows an index holds, as recall and the sync read them.

These classes are on the warm recall path, so they are plain slotted classes rather than
typing.NamedTuple (whose import alone would cost a recall more than its query does).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from mem.index.connection import Connection

# A project's own index holds exactly one root, under this id.
ONLY_PROJECT = 1


class ProjectRow:
    """An indexed root: a project, or a brain (a portfolio index holds many)."""

    __slots__ = ("id", "path", "name", "role", "found", "signature", "watch")

    def __init__(
        self,
        id: int,
        path: str,
        name: str,
        role: str,
        found: int,
        signature: bytes | None,
        watch: str | None,
    ) -> None:
        self.id = id
        self.path = path
        self.name = name
        self.role = role
        self.found = found
        self.signature = signature
        self.watch = watch


class FileRow:
    """A root's canonical file, with the stat data and hash its rows were read at."""

    __slots__ = (
        "id",
        "path",
        "kind",
        "rank",
        "real_path",
        "hash",
        "size",
        "mtime_ns",
        "inode",
        "checked_ns",
        "utf8",
        "ctime_ns",
    )

    def __init__(
        self,
        id: int,
        path: str,
        kind: str,
        rank: int,
        real_path: str,
        hash: str,
        size: int,
        mtime_ns: int,
        inode: int,
        checked_ns: int,
        utf8: int,
        ctime_ns: int,
    ) -> None:
        self.id = id
        self.path = path
        self.kind = kind
        self.rank = rank
        self.real_path = real_path
        self.hash = hash
        self.size = size
        self.mtime_ns = mtime_ns
        self.inode = inode
        self.checked_ns = checked_ns
        self.utf8 = utf8
        self.ctime_ns = ctime_ns


class RecordRow:
    """A record as the sync writes it (ids are assigned on insert)."""

    __slots__ = (
        "ordinal",
        "kind",
        "ref",
        "text",
        "length",
        "counts",
        "digest",
        "agent",
        "ts",
        "ts_ms",
        "ts_local",
        "line",
        "memory_id",
        "revision",
    )

    def __init__(
        self,
        ordinal: int,
        kind: str,
        ref: str,
        text: str,
        length: int,  # token count n
        counts: Mapping[bytes, int],  # token -> tf
        digest: int,  # what a re-sync compares to keep a record
        agent: str | None = None,
        ts: str | None = None,
        ts_ms: float | None = None,
        ts_local: int | None = None,
        line: str | None = None,
        memory_id: str | None = None,  # notes of a project's six memory files
        revision: str | None = None,
    ) -> None:
        self.ordinal = ordinal
        self.kind = kind
        self.ref = ref
        self.text = text
        self.length = length
        self.counts = counts
        self.digest = digest
        self.agent = agent
        self.ts = ts
        self.ts_ms = ts_ms
        self.ts_local = ts_local
        self.line = line
        self.memory_id = memory_id
        self.revision = revision


class StoredRecord:
    """A record as recall shows it, with the path of its file and its root's id."""

    __slots__ = ("id", "kind", "path", "ref", "text", "line", "project_id")

    def __init__(
        self,
        id: int,
        kind: str,
        path: str,
        ref: str,
        text: str,
        line: str | None,
        project_id: int,
    ) -> None:
        self.id = id
        self.kind = kind
        self.path = path
        self.ref = ref
        self.text = text
        self.line = line
        self.project_id = project_id


class ScoreInputs:
    """What a record's score is computed from (`recall --explain` shows it)."""

    __slots__ = ("frequencies", "tokens", "ts_ms", "ts_local")

    def __init__(
        self, frequencies: tuple[int, ...], tokens: int, ts_ms: float | None, ts_local: int
    ) -> None:
        self.frequencies = frequencies  # of each query term, in query order
        self.tokens = tokens
        self.ts_ms = ts_ms
        self.ts_local = ts_local


def project_rows(
    conn: Connection, with_cache: bool = True, ids: Collection[int] | None = None
) -> list[ProjectRow]:
    """Every indexed root (or those of `ids`), by path then role; without its freshness
    cache unless asked."""
    cache = "signature, watch" if with_cache else "NULL, NULL"
    among = "" if ids is None else f" WHERE id IN ({','.join(str(int(i)) for i in ids)})"
    rows = conn.execute(
        f"SELECT id, path, name, role, found, {cache} FROM projects{among} ORDER BY path, role"
    )
    return [ProjectRow(*row) for row in rows]


def file_rows(conn: Connection, project_id: int = ONLY_PROJECT) -> dict[str, FileRow]:
    rows = conn.execute(
        "SELECT id, path, kind, rank, real_path, hash, size, mtime_ns, inode, checked_ns, utf8,"
        " ctime_ns FROM files WHERE project_id = ?",
        (project_id,),
    )
    return {row[1]: FileRow(*row) for row in rows}
