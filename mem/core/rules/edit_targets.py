"""What a host's file-editing tool is about to change, read from its `tool_input`. Pure.

The hosts' edit tools, as their pre-tool hooks receive them:

- Claude Code: `Edit` (`file_path`, `new_string`), `Write` (`file_path`, `content`),
  `MultiEdit` (`file_path`, `edits[].new_string`), `NotebookEdit` (`notebook_path`,
  `new_source`);
- Codex: `apply_patch`, its patch text in `command` (also `input` or `patch`, a string or
  a list of strings holding one), whose `*** Update File: p`, `*** Add File: p`,
  `*** Delete File: p` and `*** Move to: p` lines name the files and `+` lines the new text;
- Gemini CLI: `write_file` (`file_path`, `content`), `replace` (`file_path`, `new_string`).

Every shape is read whatever the host, so a host that renames a field or sends another
tool's input changes nothing; what is not there is simply not found.
"""

from __future__ import annotations

from typing import Any, NamedTuple

PATH_FIELDS = ("file_path", "notebook_path", "path")
TEXT_FIELDS = ("new_string", "content", "new_source")
PATCH_FIELDS = ("command", "input", "patch")
PATCH_HEADERS = ("*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: ")
TEXT_LIMIT = 64 * 1024  # characters of new text read for identifiers: a definition is near a hunk
PATHS_AT_MOST = 20  # files of one patch looked up


class Edit(NamedTuple):
    """The files a tool call changes (as the host named them), the text it writes, and the
    text it replaces (what git blame asks about: the commits that wrote those lines)."""

    paths: list[str]
    text: str
    replaced: str = ""


def edit_of(tool_input: Any) -> Edit:
    """The files and new text of a tool call's input; nothing when it names no file."""
    if not isinstance(tool_input, dict):
        return Edit([], "")
    paths: list[str] = []
    texts: list[str] = []
    olds: list[str] = [value for value in [tool_input.get("old_string")] if isinstance(value, str)]
    for field in PATH_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, str) and value.strip():
            paths.append(value.strip())
            break
    for field in TEXT_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, str):
            texts.append(value)
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        texts += [
            each["new_string"]
            for each in edits
            if isinstance(each, dict) and isinstance(each.get("new_string"), str)
        ]
        olds += [
            each["old_string"]
            for each in edits
            if isinstance(each, dict) and isinstance(each.get("old_string"), str)
        ]
    for patch in _patches(tool_input):
        patch_paths, patch_text, patch_removed = _read_patch(patch)
        paths += patch_paths
        texts.append(patch_text)
        olds.append(patch_removed)
    text = "\n".join(texts)[:TEXT_LIMIT]
    named = [path for path in dict.fromkeys(paths) if _is_a_name(path)]
    replaced = "\n".join(old for old in olds if old.strip())[:TEXT_LIMIT]
    return Edit(named[:PATHS_AT_MOST], text, replaced)


def _is_a_name(path: str) -> bool:
    """Whether a file system could hold this path: no NUL, no lone surrogate (JSON allows
    both); anything else names no file of the project."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\0" not in path


def _patches(tool_input: dict[str, Any]) -> list[str]:
    found = []
    for field in PATCH_FIELDS:
        value = tool_input.get(field)
        strings = value if isinstance(value, list) else [value]
        found += [each for each in strings if isinstance(each, str) and "\n*** " in each]
    return found


def _read_patch(patch: str) -> tuple[list[str], str, str]:
    """The files an apply_patch patch names, its added lines, and its removed ones."""
    paths = []
    added = []
    removed = []
    for line in patch.splitlines():
        if line.startswith("*** "):
            for header in PATCH_HEADERS:
                if line.startswith(header) and line[len(header) :].strip():
                    paths.append(line[len(header) :].strip())
        elif line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("@@ "):  # the hunk's context: the definition it changes
            added.append(line[3:])
    return paths, "\n".join(added), "\n".join(removed)


REPLACED_LINES_AT_MOST = 400  # lines of a file blamed for one edit
SHORTEST_LINE = 8  # a replaced line looked up alone: `}` or `else:` is in every file


def replaced_lines(content: str, replaced: str) -> list[tuple[int, int]]:
    """The 1-based line ranges of `content` that an edit replaces: where the replaced text
    stands whole, else each of its lines (stripped, SHORTEST_LINE or longer) found alone,
    at its first place; at most REPLACED_LINES_AT_MOST lines."""
    if not replaced.strip():
        return []
    at = content.find(replaced)
    if at >= 0:
        first = content.count("\n", 0, at) + 1
        last = first + replaced.rstrip("\n").count("\n")
        return [(first, min(last, first + REPLACED_LINES_AT_MOST - 1))]
    places: dict[str, int] = {}
    for number, line in enumerate(content.split("\n"), start=1):
        places.setdefault(line.strip(), number)
    wanted = {line.strip() for line in replaced.split("\n") if len(line.strip()) >= SHORTEST_LINE}
    numbers = sorted(places[line] for line in wanted if line in places)[:REPLACED_LINES_AT_MOST]
    ranges: list[tuple[int, int]] = []
    for number in numbers:
        if ranges and ranges[-1][1] == number - 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    return ranges


# The names a change defines: `def f`, `class C`, `function f`, `fn f`, `func (r T) F`, ...
# (what a patch's `@@ def f` context lines say too). Names merely used are not being edited.
DEFINITION = (
    r"\b(?:def|class|function|fn|func|interface|struct|enum|trait|type)\s+"
    r"(?:\([^()\n]*\)\s*)?\*?([A-Za-z_][A-Za-z0-9_]*)"
)
IDENTIFIERS_AT_MOST = 40
SHORTEST_IDENTIFIER = 3


def defined_names(text: str) -> list[str]:
    """The names the text defines, in order, each once (no dunder names such as __init__)."""
    import re

    found: dict[str, None] = {}
    for name in re.findall(DEFINITION, text):
        if len(name) >= SHORTEST_IDENTIFIER and not (name.startswith("__") and name.endswith("__")):
            found.setdefault(name, None)
    return list(found)[:IDENTIFIERS_AT_MOST]
