"""The memories that govern a file about to change: what the pre-edit hook injects.

An agent reads the memory loaded at session start, then ignores it at the moment it acts;
given the decision's text at that moment, it reuses it. So before an edit, the notes that
concern the file edited, strictly:

- notes whose evidence (`mem evidence add`) names the file;
- notes that name its path: whole or a trailing part with a folder (`index/bm25.py`), its
  file name (`bm25.py`; a name many folders hold, such as `Cargo.toml`, `__init__.py`,
  `index.js` or `.gitignore`, only with its folder), its dotted module (`mem.index.bm25`,
  `index.bm25`);
- notes that name the module alone (`bm25`; a code file's, not a document's) or a
  function or class the new text defines (`read_records`, `WalkBuilder`; a plain word such
  as `finish` names too many), when the word is rare in the project (held by at most
  RARE_SHARE of its records, or RARE_AT_LEAST) and is written as code: an identifier's
  shape (a digit, an inner underscore, a capital after small letters), else `` `word` ``,
  `word(` or `word.attr`. A common word such as `index`, `utils` or `brief` brings nothing.

Retired notes never. Best first (evidence, then a path, then a name), then the newer.
In a git checkout, the commits that touched the file follow (`governing_commits`).
"""

from __future__ import annotations

from mem import index, layout
from mem.core.rules import edit_targets
from mem.core.text import parse
from mem.domain.brief import PROMPT_TERMS, BriefUnit, commit_entry, content_terms, memory_entry
from mem.files import safe_paths

EVIDENCE = 8
FOLDER_PATH = 4  # `mem/index/bm25.py`, `index/bm25.py`
FILE_NAME = 3  # `bm25.py`, `mem.index.bm25`
MODULE_WORD = 2  # `bm25`, `bm25.search`
DEFINED_NAME = 1  # each name the edit defines, at most DEFINED_NAMES_COUNTED
DEFINED_NAMES_COUNTED = 3
RARE_SHARE = 1 / 500
RARE_AT_LEAST = 3
# An identifier's shape (`WalkBuilder`, `read_records`) names one thing however many notes
# hold it; a plain word written as code (`parser`) must be rare.
RARE_CODE_SHARE = 1 / 50
RARE_CODE_AT_LEAST = 10
# File names that many folders hold (a bare `Cargo.toml`, `index.js` or `.gitignore` names
# a kind of file, not one), and module names that say nothing alone.
GENERIC_STEMS = frozenset(
    """
    __init__ __main__ index main mod lib utils util helpers helper common core base types
    type config settings constants models model app api test tests conftest setup readme
    changelog license package makefile dockerfile cli server client views urls admin errors
    exceptions schema default defaults cargo pyproject gemfile go build requirements tsconfig
    """.split()
)
# Files that are no module: their name alone (`FUNDING`, `summary`) is a word.
DOCUMENT_EXTENSIONS = frozenset(
    "md rst txt adoc yml yaml json toml lock cfg ini csv xml html svg png jpg".split()
)
PATH_TOKEN = r"[\w.\-/]*[\w/]"  # what a note writes a path or dotted name as


class Target:
    """One file about to change, as a note could name it (in the project at `root`)."""

    __slots__ = ("path", "name", "stem", "extension", "dotted", "package", "root", "_unique")

    def __init__(self, path: str, root: str) -> None:
        self.path = path  # relative to the project root, '/'-separated
        self.root = root
        self._unique: bool | None = None
        folder, _, self.name = path.rpartition("/")
        stem, _, self.extension = self.name.partition(".")
        if not stem:  # a dotfile: `.gitignore` is its whole name
            stem, self.extension = self.name, ""
        parts = [*folder.split("/"), stem] if folder else [stem]
        self.package = stem == "__init__" and bool(folder)
        if self.package:
            parts = parts[:-1]  # a package's __init__.py is the package
        self.stem = parts[-1]
        self.dotted = parts if all(part.isidentifier() for part in parts) else None

    def unique(self) -> bool:
        """Whether no other file of the work tree has this file name (asked of git once, and
        only for a name many folders hold, such as `build.rs`)."""
        if self._unique is None:
            from mem.files import worktree

            # 0: a file about to be created, which no other file names alike.
            self._unique = worktree.files_named(self.root, self.name) in (0, 1)
        return self._unique


def targets(root: str, base: str, paths: list[str]) -> list[Target]:
    """The files of the project these paths name (absolute or relative to `base`), each once;
    none outside the project, none of its memory folders."""
    found: dict[str, Target] = {}
    for path in paths:
        relative = safe_paths.inside_root(root, base, path)
        if relative is None or relative.startswith(
            (layout.AGENTS_MEMORY + "/", layout.BMAD_MEMORY + "/")
        ):
            continue
        found.setdefault(relative, Target(relative, root))
    return list(found.values())


def governing(
    root: str, edit: edit_targets.Edit, base: str, seen: set[str], at_most: int
) -> tuple[list[BriefUnit], int]:
    """The notes that govern the files an edit changes, best first, at most `at_most`, none
    of `seen` (a set of `<id> <revision>`); and how many there are."""
    files = targets(root, base, edit.paths)
    if not files:
        return [], 0
    # A plain word (`finish`, `search`) is the name of many functions: only identifiers.
    names = [name for name in edit_targets.defined_names(edit.text) if looks_like_code(name)]

    def collect(open_index: index.OpenIndex) -> tuple[list[BriefUnit], int]:
        project = open_index(root)
        conn = project.conn
        memory_files = {
            row.id: row for path, row in project.files.items() if layout.is_memory_file(path)
        }
        file_ids = list(memory_files)
        scores = _scores(conn, file_ids, files, names)
        if scores and index.has_lifecycle_events(conn):
            from mem.domain import lifecycle_events  # only where something was ever retired

            paths = {file_id: row.path for file_id, row in memory_files.items()}
            for record_id in lifecycle_events.retired_in_index(root, conn, paths):
                scores.pop(record_id, None)
        if not scores:
            return [], 0
        newest = index.newest_first(conn, list(scores))
        place = {record_id: position for position, record_id in enumerate(newest)}
        ranked = sorted(scores, key=lambda record_id: (-scores[record_id], place[record_id]))
        stored = index.fetch(conn, ranked)
        entries = []
        for record_id in ranked:
            entry = memory_entry(stored[record_id], float(scores[record_id]))
            if f"{entry.id} {entry.revision}" not in seen:
                entries.append(entry)
        return entries[:at_most], len(entries)

    return index.answer(collect)


def governing_commits(
    root: str, edit: edit_targets.Edit, base: str, seen: set[str], at_most: int
) -> list[BriefUnit]:
    """The commits that touched the files an edit changes (docs/history.md): those that
    wrote the lines it replaces first, then those whose message matches its new text, then
    the newer; at most `at_most`, none of `seen`; none outside a git checkout or with
    `history = false`."""
    from mem.domain import history

    files = targets(root, base, edit.paths)
    if not files or at_most <= 0 or not history.in_hooks(root):
        return []
    terms = content_terms([edit.text], PROMPT_TERMS)
    paths = [target.path for target in files]
    found, _ = history.touching(root, paths, terms, edit.replaced, at_most + len(seen))
    entries = [commit_entry(item) for item in found]
    return [entry for entry in entries if f"{entry.id} {entry.revision}" not in seen][:at_most]


def _scores(
    conn: index.Connection, file_ids: list[int], files: list[Target], names: list[str]
) -> dict[int, int]:
    """Record id -> how surely the note governs the files (0: not at all, left out)."""
    if not file_ids:
        return {}
    words = {target.stem for target in files} | set(names)
    needed = {term for target in files for way in _mention_terms(target) for term in way}
    needed |= {word.lower() for word in words}
    holding = index.records_holding(conn, sorted(needed))
    count = index.record_count(conn)
    rare = max(RARE_AT_LEAST, int(count * RARE_SHARE))
    rare_code = max(RARE_CODE_AT_LEAST, int(count * RARE_CODE_SHARE))
    rare_words = {
        word
        for word in words
        if len(holding.get(word.lower(), ())) <= (rare_code if looks_like_code(word) else rare)
    }
    candidates: set[int] = set()
    for target in files:
        for terms in _mention_terms(target):
            candidates |= _holding_all([holding.get(term, []) for term in terms])
    for word in rare_words:
        candidates.update(holding.get(word.lower(), ()))
    texts = index.note_texts(conn, sorted(candidates), file_ids)
    scores = {
        record_id: score
        for record_id, text in texts.items()
        if (score := _score(text, files, names, rare_words))
    }
    for record_id in index.notes_with_evidence_on(conn, [f.path for f in files], file_ids):
        scores[record_id] = scores.get(record_id, 0) + EVIDENCE
    return scores


def _mention_terms(target: Target) -> list[list[str]]:
    """The lexical terms a note that names the file holds, one list per way of naming it:
    its file name (`bm25.py`: bm25, py; a generic one with its folder), or its dotted module
    (`index.bm25`: index, bm25). A common module word is then read in a few notes only."""
    folders = target.path.split("/")[:-1]
    if target.package:  # `index/__init__.py`, `mem.index`
        above = folders[-2:-1]
        return [[*parse.tokenize(target.stem), "__init__"]] + (
            [parse.tokenize(" ".join([*above, target.stem]))] if above else []
        )
    generic = _is_generic(target)
    ways = [parse.tokenize(" ".join([*folders[-1:], target.name] if generic else [target.name]))]
    if folders and target.dotted:
        ways.append(parse.tokenize(f"{folders[-1]} {target.stem}"))
    return ways


def _holding_all(postings: list[list[int]]) -> set[int]:
    if not postings:
        return set()
    postings = sorted(postings, key=len)
    found = set(postings[0])
    for ids in postings[1:]:
        found.intersection_update(ids)
    return found


def _is_generic(target: Target) -> bool:
    return (
        target.stem.lower() in GENERIC_STEMS
        or target.name.startswith(("__init__.", "."))
        or target.name.lower() in GENERIC_STEMS
    )


def _score(text: str, files: list[Target], names: list[str], rare_words: set[str]) -> int:
    import re

    best = 0
    tokens = set(re.findall(PATH_TOKEN, text))
    for target in files:
        for token in tokens:
            best = max(best, _path_score(token, target))
        # A script without an extension: `copy-examples`, or a rare word written as code.
        plain = not target.extension and not _is_generic(target)
        if plain and (looks_like_code(target.name) or target.name in rare_words):
            if _names_as_code(text, target.name):
                best = max(best, FILE_NAME)
        module = target.extension and target.extension.lower() not in DOCUMENT_EXTENSIONS
        if module and target.stem in rare_words and _names_as_code(text, target.stem):
            best = max(best, MODULE_WORD)
    defined = sum(1 for name in names if name in rare_words and _names_as_code(text, name))
    return best + DEFINED_NAME * min(defined, DEFINED_NAMES_COUNTED)


def _path_score(token: str, target: Target) -> int:
    mention = token[2:] if token.startswith("./") else token
    if "/" in mention:
        # A trailing part of the path, or an absolute path that ends with it (not a URL's
        # `//host/...`, and not for a file at the root: any repository has a README.md).
        if f"/{target.path}".endswith(f"/{mention}") or (
            mention.startswith("/")
            and not mention.startswith("//")
            and "/" in target.path
            and mention.endswith(f"/{target.path}")
        ):
            return FOLDER_PATH
        return 0
    if mention == target.name and target.extension and not target.name.startswith("."):
        if not _is_generic(target) or target.unique():
            return FILE_NAME
    if target.dotted and "." in mention:
        parts = mention.split(".")
        dotted = target.dotted
        # `mem.index.bm25.search` names the module; `mem.index.cache` not the package's
        # __init__.py, only `mem.index` does.
        for size in range(2, len(dotted) + 1):
            if parts[:size] == dotted[-size:] and (len(parts) == size or not target.package):
                return FILE_NAME
    return 0


def _names_as_code(text: str, word: str) -> bool:
    """Whether the note names this word: as a whole word when it looks like an identifier,
    else only written as code: in a code span, or as `word(` or `word.attr`."""
    import re

    if word.lower() in GENERIC_STEMS:
        return False
    escaped = re.escape(word)
    if looks_like_code(word):  # also `self.read_records`, `struct.WalkBuilder.html`
        return re.search(rf"(?<!\w){escaped}(?!\w)", text) is not None
    if re.search(rf"(?<![\w.]){escaped}(?:\(|\.[A-Za-z_])", text):
        return True
    # Spans read left to right, so "`-a` overrides `-b`" holds no `overrides` in code.
    inside = re.compile(rf"(?<!\w){escaped}(?!\w)")
    return any(inside.search(span) for span in re.findall(r"`[^`\n]+`", text))


def looks_like_code(word: str) -> bool:
    """An identifier's shape: a digit, an inner underscore or dash, or an inner capital after
    a small letter (`bm25`, `read_records`, `copy-examples`, `readRecords`; not `FUNDING`)."""
    inner = word.strip("_-")
    return (
        any(c.isdigit() for c in word)
        or "_" in inner
        or "-" in inner
        or (any(c.islower() for c in word) and any(c.isupper() for c in word[1:]))
    )
