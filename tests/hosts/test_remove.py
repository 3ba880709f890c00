"""`mem init --agents --hooks --remove` after an install gives each host its settings file
back byte for byte, as the person (or the host) wrote it: indentation, key layout, escapes,
final newline, and a file that held an empty `hooks` object."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import RunMem

ORIGINALS = {
    "claude-code": (
        ".claude/settings.json",
        '{\n    "model": "opus",\n    "env": {"NOTE": "caf\\u00e9"}\n}',
    ),
    "codex": (".codex/hooks.json", '{\n  "hooks": {}\n}\n'),
    "gemini": (".gemini/settings.json", '{"ui": {"theme": "Default"}}'),
}


@pytest.mark.xfail(
    strict=True,
    reason="mem rewrites what it merged into as json.dumps(indent=2) plus a newline, and deletes"
    " a Codex hooks.json left with no hooks (the doctor work makes --remove byte-identical)",
)
@pytest.mark.parametrize("host", list(ORIGINALS))
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
