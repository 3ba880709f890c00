"""The files and new text of each host's edit tools, read from their tool_input."""

from __future__ import annotations

import pytest

from mem.core.rules.edit_targets import defined_names, edit_of

PATCH = """*** Begin Patch
*** Update File: mem/index/bm25.py
@@ def search(conn, terms):
-    return []
+    return ranked(conn, terms)
*** Add File: docs/new.md
+# New
*** Delete File: old.py
*** Update File: a.py
*** Move to: b.py
@@
+class Ranked:
*** End Patch
"""


@pytest.mark.parametrize(
    ("tool_input", "paths", "text"),
    [
        ({"file_path": "/p/a.py", "old_string": "x", "new_string": "y"}, ["/p/a.py"], "y"),
        ({"file_path": "a.py", "content": "all"}, ["a.py"], "all"),
        (
            {"file_path": "a.py", "edits": [{"new_string": "one"}, {"new_string": "two"}, 3]},
            ["a.py"],
            "one\ntwo",
        ),
        ({"notebook_path": "n.ipynb", "new_source": "cell"}, ["n.ipynb"], "cell"),
        ({"input": PATCH}, None, None),
        ({"patch": [PATCH]}, None, None),
    ],
    ids=["edit", "write", "multi-edit", "notebook", "patch-input", "patch-list"],
)
def test_each_shape_gives_its_files_and_new_text(
    tool_input: dict[str, object], paths: list[str] | None, text: str | None
) -> None:
    edit = edit_of(tool_input)
    if paths is None:  # the patch
        assert edit.paths == ["mem/index/bm25.py", "docs/new.md", "old.py", "a.py", "b.py"]
        assert "def search(conn, terms):" in edit.text and "class Ranked:" in edit.text
        assert "return []" not in edit.text  # removed lines are not the new text
    else:
        assert (edit.paths, edit.text) == (paths, text)


@pytest.mark.parametrize("tool_input", [None, [], "a.py", {"file_path": 5}, {"command": "ls"}])
def test_anything_else_names_no_file(tool_input: object) -> None:
    assert edit_of(tool_input).paths == []


def test_the_names_a_change_defines_not_those_it_uses() -> None:
    text = (
        "def parse_settings(text):\n    return load(text)\n"
        "class Budget:\n    def __init__(self): ...\n"
        "func (r *Reader) ReadAll() {}\nexport function renderPage() {}\nfn main() {}\n"
    )
    assert defined_names(text) == ["parse_settings", "Budget", "ReadAll", "renderPage", "main"]


def test_a_path_no_file_system_could_hold_names_no_file() -> None:
    assert edit_of({"file_path": "\ud800/retry.py"}).paths == []
    assert edit_of({"file_path": "a\0b.py"}).paths == []
    assert edit_of({"file_path": "café/ü.py"}).paths == ["café/ü.py"]
