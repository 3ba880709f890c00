"""Every canonical path `mem` knows, with its kind and its recall rank: one table.

Paths are POSIX and relative: to the project root (`PROJECT`), to a brain (`BRAIN`), or to
the user's home (`HOME`). The rank is the reference's candidate order, which recall keeps
on equal scores: journal events first, then the notes of `.bmad/memory`, then those of
`.agents/memory` (bmad-mem.md section 7); stores recall never searches rank 20 and up,
archived journals `ARCHIVE_RANK_BASE` and up. A path the index does not mirror has no rank.
"""

from __future__ import annotations


class KnownPath:
    """A canonical path, its kind, and its candidate order in the index (None: not indexed)."""

    __slots__ = ("rank", "path", "kind")

    def __init__(self, rank: int | None, path: str, kind: str) -> None:
        self.rank = rank
        self.path = path
        self.kind = kind


BMAD_MEMORY = ".bmad/memory"  # the reference's stores and notes
AGENTS_MEMORY = ".agents/memory"  # pack-memory's notes, context and handoffs
NEXUS = ".bmad-plus/nexus"  # BMAD+ Nexus run state: only ever read

NOTE_NAMES = ("decisions.md", "lessons.md", "patterns.md")
ARCHIVE_RANK_BASE = 1000

PROJECT: tuple[KnownPath, ...] = (
    KnownPath(0, f"{BMAD_MEMORY}/journal.ndjson", "journal"),
    KnownPath(1, f"{BMAD_MEMORY}/decisions.md", "notes"),
    KnownPath(2, f"{BMAD_MEMORY}/lessons.md", "notes"),
    KnownPath(3, f"{BMAD_MEMORY}/patterns.md", "notes"),
    KnownPath(4, f"{AGENTS_MEMORY}/decisions.md", "notes"),
    KnownPath(5, f"{AGENTS_MEMORY}/lessons.md", "notes"),
    KnownPath(6, f"{AGENTS_MEMORY}/patterns.md", "notes"),
    KnownPath(20, f"{BMAD_MEMORY}/evidence.ndjson", "evidence"),
    KnownPath(21, f"{BMAD_MEMORY}/lifecycle.ndjson", "lifecycle"),
    KnownPath(22, f"{BMAD_MEMORY}/outcomes.ndjson", "outcomes"),
    KnownPath(30, f"{BMAD_MEMORY}/pattern-scores.json", "pattern-scores"),
    KnownPath(31, f"{BMAD_MEMORY}/promotions.ndjson", "promotions"),
    KnownPath(None, f"{BMAD_MEMORY}/writer.lock", "lock"),
    KnownPath(None, f"{BMAD_MEMORY}/archive", "archive-directory"),
    KnownPath(None, f"{AGENTS_MEMORY}/context.md", "context"),
    KnownPath(None, f"{AGENTS_MEMORY}/sessions", "handoff-directory"),
    KnownPath(None, f"{AGENTS_MEMORY}/.brain-link", "brain-link"),
    KnownPath(None, f"{AGENTS_MEMORY}/mem.toml", "settings"),
    KnownPath(None, f"{BMAD_MEMORY}/.local", "local-directory"),
    KnownPath(None, ".gitattributes", "gitattributes"),
    KnownPath(None, ".gitignore", "gitignore"),
    KnownPath(None, f"{NEXUS}/runs", "nexus-runs"),
    KnownPath(None, f"{NEXUS}/writer.lock", "nexus-lock"),
    KnownPath(None, f"{NEXUS}/recovery.lock", "nexus-lock"),
)
# Deviation D7: a brain keeps notes in memory/ (the reference's layout) and at its root.
BRAIN: tuple[KnownPath, ...] = (
    KnownPath(101, "memory/decisions.md", "notes"),
    KnownPath(102, "memory/lessons.md", "notes"),
    KnownPath(103, "memory/patterns.md", "notes"),
    KnownPath(104, "decisions.md", "notes"),
    KnownPath(105, "lessons.md", "notes"),
    KnownPath(106, "patterns.md", "notes"),
    KnownPath(None, "memory", "brain-notes-directory"),
    KnownPath(None, "projects", "brain-projects"),
    KnownPath(None, "projects-index.md", "brain-projects-index"),
    KnownPath(None, "identity.yaml", "brain-identity"),
)
HOME: tuple[KnownPath, ...] = (
    KnownPath(None, ".bmad-plus/brain", "global-brain"),
    KnownPath(None, ".claude/memory", "claude-memory"),
)


def _path(table: tuple[KnownPath, ...], kind: str, name: str = "") -> str:
    (found,) = [entry.path for entry in table if entry.kind == kind and entry.path.endswith(name)]
    return found


def sources(table: tuple[KnownPath, ...]) -> list[tuple[int, str, str]]:
    """(rank, path, kind) of the files the index mirrors, in candidate order."""
    return [(entry.rank, entry.path, entry.kind) for entry in table if entry.rank is not None]


JOURNAL = _path(PROJECT, "journal")
EVIDENCE = _path(PROJECT, "evidence")
LIFECYCLE = _path(PROJECT, "lifecycle")
OUTCOMES = _path(PROJECT, "outcomes")
PATTERN_SCORES = _path(PROJECT, "pattern-scores")
PROMOTIONS = _path(PROJECT, "promotions")
WRITER_LOCK = _path(PROJECT, "lock")
ARCHIVE_DIR = _path(PROJECT, "archive-directory")
CONTEXT = _path(PROJECT, "context")
SESSIONS = _path(PROJECT, "handoff-directory")
BRAIN_LINK = _path(PROJECT, "brain-link")
SETTINGS = _path(PROJECT, "settings")
LOCAL_DIR = _path(PROJECT, "local-directory")  # per clone, ignored by git: the writer id
GITATTRIBUTES = _path(PROJECT, "gitattributes")
GITIGNORE = _path(PROJECT, "gitignore")
NEXUS_RUNS = _path(PROJECT, "nexus-runs")
NEXUS_WRITER_LOCK = _path(PROJECT, "nexus-lock", "writer.lock")
NEXUS_RECOVERY_LOCK = _path(PROJECT, "nexus-lock", "recovery.lock")
# The six memory files, in candidate order (the order memories are listed in, too).
MEMORY_FILES = tuple(entry.path for entry in PROJECT if entry.kind == "notes")
PATTERN_NOTES = tuple(path for path in MEMORY_FILES if path.endswith("/patterns.md"))
# The NDJSON stores `mem archive` can move, by the name the command takes.
ARCHIVABLE = {
    "journal": JOURNAL,
    "outcomes": OUTCOMES,
    "promotions": PROMOTIONS,
    "evidence": EVIDENCE,
    "lifecycle": LIFECYCLE,
}


# Deviation D13 (team layout): each store's shards, `<folder>/<YYYY-MM>/<writer>.ndjson`.
# `reinforcements` has no classic file: its shards hold the reinforcements that a team
# project folds onto pattern-scores.json on every read.
REINFORCEMENTS = f"{BMAD_MEMORY}/reinforcements.ndjson"
SHARD_DIRS = {name: f"{BMAD_MEMORY}/{name}.d" for name in [*ARCHIVABLE, "reinforcements"]}
# Journal shards' candidate ranks: in the journal's tier (recall.score), above every other
# source's rank, so that a team may hold any number of them.
SHARD_RANK_BASE = 10**12
# A team project's notes, one file each: `<folder>/<date>-<slug>-<writer>.md`, recalled as
# notes after the classic files (ranks from NOTE_FILE_RANK_BASE, by folder, then name).
NOTE_DIRS = {name: f"{AGENTS_MEMORY}/{name.removesuffix('.md')}" for name in NOTE_NAMES}
NOTE_FILE_RANK_BASE = 1_000_000


def is_archive_rank(rank: int) -> bool:
    return ARCHIVE_RANK_BASE <= rank < NOTE_FILE_RANK_BASE


def is_note_file(relative: str) -> bool:
    """A team layout's note file (one note), by its path."""
    folder, _, name = relative.rpartition("/")
    return name.endswith(".md") and folder in NOTE_FOLDERS


def is_memory_file(relative: str) -> bool:
    """A file of the project's memories: a classic notes file or a team note file."""
    return relative in MEMORY_FILES or is_note_file(relative)


def note_file_kind(relative: str) -> str:
    """The classic file a note file's note belongs with: `decisions.md` for decisions/..."""
    return NOTE_FOLDERS[relative.rpartition("/")[0]]


def unsharded(relative: str) -> str:
    """The classic store a shard belongs to (a team layout's shards are one store with it)."""
    for name, folder in SHARD_DIRS.items():
        if relative.startswith(folder + "/"):
            return ARCHIVABLE.get(name, REINFORCEMENTS)
    return relative


def archived_store(file_name: str) -> str | None:
    """The store (a name of ARCHIVABLE) whose archive a file of ARCHIVE_DIR is, by its name.

    `mem archive <store>` names its archives `<store>-<first ts>--<last ts>[-<n>].ndjson`.
    """
    if file_name.endswith(".ndjson"):
        for name in ARCHIVABLE:
            if file_name.startswith(name + "-"):
                return name
    return None


NOTE_FOLDERS = {folder: name for name, folder in NOTE_DIRS.items()}
BRAIN_NOTES_DIR = _path(BRAIN, "brain-notes-directory")
BRAIN_PROJECTS = _path(BRAIN, "brain-projects")
BRAIN_PROJECTS_INDEX = _path(BRAIN, "brain-projects-index")
BRAIN_IDENTITY = _path(BRAIN, "brain-identity")
GLOBAL_BRAIN = _path(HOME, "global-brain")
CLAUDE_MEMORY = _path(HOME, "claude-memory")
