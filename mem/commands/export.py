"""`mem export`: the global brain as one Markdown file."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from mem import layout
from mem.core.javascript import js
from mem.core.rules import secrets
from mem.core.text import markdown
from mem.errors import MemError
from mem.files import brain, safe_paths, writing

BRAIN_KINDS = layout.NOTE_NAMES


def export(
    root: str, now: str, output: str | None, force: bool, allow_secrets: Iterable[str] = ()
) -> dict[str, Any]:
    brain_dir = brain.global_brain_dir()
    if not os.path.isdir(brain_dir):
        raise MemError("Global brain not found. Nothing to export.")
    path = (
        os.path.abspath(output)
        if output
        else os.path.join(root, f"bmad-brain-export-{now[:10]}.md")
    )
    lines = ["# BMAD+ Brain Export", f"> Exported: {now}", ""]
    included = []
    for name in ("identity.yaml", *BRAIN_KINDS):
        content = safe_paths.read_bounded(brain_dir, name)
        if content is not None:
            body = js.trim(content)
            fence = markdown.fence(body)  # a ``` line in the file does not end the block
            lines += [f"## {name}", fence, body, fence, ""]
            included.append(name)
    if os.path.isdir(os.path.join(brain_dir, "projects")):
        lines += ["## Projects", ""]
        for name in safe_paths.list_names(brain_dir, "projects"):
            if name.endswith(".yaml"):
                body = js.trim(safe_paths.read_bounded(brain_dir, f"projects/{name}") or "")
                fence = markdown.fence(body)
                lines += [f"### {markdown.inline(name)}", fence + "yaml", body, fence, ""]
                included.append(f"projects/{name}")
    text = "\n".join(lines)
    secrets.refuse([("the export", text)], allow_secrets)
    writing.write_export(path, text, force)
    return {"path": path, "brain": brain_dir, "included": included, "bytes": len(text.encode())}
