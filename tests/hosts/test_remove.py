"""`mem init --agents --hooks --remove` after an install gives each host its settings file
back byte for byte, as the person (or the host) wrote it in one layout: indentation,
escapes, final newline (a layout mixed by hand keeps only its indentation: docs/hooks.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import RunMem

ORIGINALS = {
    "claude-code": (
        ".claude/settings.json",
        '{\n    "model": "opus",\n    "env": {\n        "NOTE": "caf\\u00e9"\n    }\n}',
    ),
    "codex": (".codex/hooks.json", '{\n  "hooks": {}\n}\n'),
    "gemini": (".gemini/settings.json", '{"ui": {"theme": "Default"}}'),
}


@pytest.mark.parametrize(
    "host",
    [
        "claude-code",
        pytest.param(
            "codex",
            marks=pytest.mark.xfail(
                strict=True,
                reason="after --remove a file that holds mem's hooks alone reads as one mem"
                " created, so it is deleted: whether it first held an empty `hooks` object is"
                " not known then",
            ),
        ),
        "gemini",
    ],
)
def test_remove_after_install_gives_the_settings_file_back_as_it_was(
    run_mem: RunMem, tmp_path: Path, host: str
) -> None:
    (tmp_path / ".agents" / "memory").mkdir(parents=True)
    relative, original = ORIGINALS[host]
    path = tmp_path / relative
    path.parent.mkdir()
    path.write_bytes(original.encode())
    for extra in ((), ("--remove",)):
        done = run_mem("init", "--agents", "--hooks", "--host", host, *extra, "-d", str(tmp_path))
        assert done.returncode == 0, done.stdout + done.stderr
    assert path.exists() and path.read_bytes() == original.encode()
