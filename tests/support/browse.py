"""A project with something in every part of `mem browse`, and a running `mem browse` on it.

Built once per test module (starting the server and the browser is the slow part), so
every subprocess gets its environment explicitly instead of from the function-scoped
autouse fixture.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from click.testing import CliRunner

from mem.cli import app
from mem.domain import memories
from support.cli import mem_command
from support.git import GIT_ENV, make_repository
from support.nexus import clone_run, relocated, write_observation

LESSONS = ".agents/memory/lessons.md"
NOTES = """# Lessons

### Verified artifacts only
Record an outcome only after Nexus accepted current, independently verified evidence.

### Cache contract
Preserve false and zero cache values.

### Cache shortcut
Skip cache values when hot.

### Cache alternative
Drop cache values on every deploy.

### Cache resolution
Keep cache values, but version them.

### Billing export
Exports run nightly from src/retry.py.

### Hetzner firewall first
Always attach the hetzner firewall before the server gets a public address.

### Escaping <script>window.owned = 1</script> & <b>markup</b>
Headings are text: <img src=x onerror="window.owned = 2"> must show as typed.
"""
PATTERNS = """# Patterns

### chromadb batch ingestion
Batch upserts of 500 documents into chromadb.
"""
IDS = {
    heading: memories.memory_id(LESSONS, heading)
    for heading in (
        "Verified artifacts only",
        "Cache contract",
        "Cache shortcut",
        "Cache alternative",
        "Cache resolution",
        "Billing export",
    )
}
URL = re.compile(r"http://127\.0\.0\.1:(\d+)/[^\s\"]+")
START_TIMEOUT = 60.0


def environment(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        **GIT_ENV,
        "HOME": str(home),
        "MEM_CACHE_DIR": str(home / "cache"),
        "MEM_NOW": "2026-10-18T09:30:00.000Z",
        "TZ": "UTC",
        "TMPDIR": str(home / "tmp"),
    }


def mem(env: dict[str, str], project: Path, *args: str, now: str | None = None) -> str:
    """One command through the real CLI, in process (the setup runs about twenty of them)."""
    done = CliRunner().invoke(
        app.cli,
        [*args, "-d", str(project)],
        env={**env, **({"MEM_NOW": now} if now else {})},
        catch_exceptions=False,
    )
    assert done.exit_code == 0, f"mem {' '.join(args)}: {done.output}"
    return done.stdout


def build_project(base: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """(project, environment, receipt ids by heading) with every review state present."""
    home = base / "home"
    (home / "tmp").mkdir(parents=True)
    env = environment(home)
    project = relocated("a-accepted", base)
    (project / LESSONS).write_text(NOTES, encoding="utf-8")
    (project / ".agents/memory/patterns.md").write_text(PATTERNS, encoding="utf-8")
    make_repository(project, env)
    clone_run(project, "one", "two")
    clone_run(project, "one", "three")
    receipts: dict[str, str] = {}
    for run_id, heading, relation in (
        ("one", "Cache contract", {}),
        ("two", "Cache alternative", {"contradicts": ["Cache contract"]}),
        ("three", "Cache resolution", {"supersedes": ["Cache alternative", "Cache contract"]}),
    ):
        fields = {key: [receipts[name] for name in names] for key, names in relation.items()}
        name = write_observation(
            project,
            f"obs-{run_id}.json",
            runId=run_id,
            memory={"file": LESSONS, "heading": heading},
            **fields,
        )
        reply = mem(env, project, "observe", "--input", name, "--json")
        receipts[heading] = re.search(r'"id": "([0-9a-f]{64})"', reply).group(1)  # type: ignore[union-attr]

    add = ("evidence", "add")
    mem(env, project, *add, IDS["Cache contract"], "--source", "src/policy.py", "--source",
        "src/limits.py")  # fmt: skip
    mem(env, project, *add, IDS["Billing export"], "--source", "src/retry.py")
    mem(env, project, *add, IDS["Verified artifacts only"], "--source", "src/policy.py")
    (project / "src" / "limits.py").unlink()
    (project / "src" / "retry.py").write_text("# retry.py\nVALUE = 2\n", encoding="utf-8")

    mem(env, project, "retract", IDS["Cache shortcut"], "--reason", "Hot values are never skipped")
    mem(env, project, "supersede", IDS["Cache alternative"], "--with", IDS["Cache resolution"],
        "--reason", "Versioned values replace redeploy drops")  # fmt: skip

    for now, agent, task in (
        ("2026-10-05T10:00:00.000Z", "forge", "tune pgbouncer pool size"),
        ("2026-10-06T11:00:00.000Z", "forge", "split billing exports"),
        ("2026-10-14T12:00:00.000Z", "sentinel", "review idempotency keys"),
    ):
        mem(env, project, "write", "--agent", agent, "--task", task, "--outcome", "success",
            now=now)  # fmt: skip
    for _ in range(3):
        mem(env, project, "reinforce", "--pattern", "chromadb batch ingestion", "--eval", "0.9")
    mem(env, project, "reinforce", "--pattern", "flaky retry loop", "--eval", "0.2")
    return project, env, receipts


class Browse:
    def __init__(
        self, process: subprocess.Popen[bytes], url: str, first_lines: str, errors: IO[bytes]
    ) -> None:
        self.process = process
        self.url = url
        self.port = int(URL.search(url).group(1))  # type: ignore[union-attr]
        self.first_lines = first_lines
        self._errors = errors
        found = re.search(r"snapshot of (?:the portfolio of )?(.+?) \(", first_lines)
        self.root = found.group(1) if found else ""

    def stderr(self) -> str:
        """What browse wrote to stderr so far."""
        self._errors.seek(0)
        return self._errors.read().decode("utf-8", "replace")


@contextmanager
def browsing(env: dict[str, str], project: Path, *args: str) -> Iterator[Browse]:
    """`mem browse` running on the project; always stopped (and waited for) on the way out."""
    with tempfile.TemporaryFile() as errors:  # a file: a pipe nobody drains could fill up
        process = subprocess.Popen(
            [*mem_command(), "browse", "--port", "0", *args],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        try:
            yield wait_for_url(process, errors)
        finally:
            stop(process)
            assert process.stdout is not None
            process.stdout.close()


def wait_for_url(process: subprocess.Popen[bytes], errors: IO[bytes]) -> Browse:
    """Read what browse prints (unbuffered: select must see every byte) until the URL."""
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            complete = seen[: seen.rfind(b"\n") + 1]  # whole lines only
            found = URL.search(complete.decode("utf-8", "replace"))
            if found:
                return Browse(process, found.group(0), complete.decode("utf-8", "replace"), errors)
        elif process.poll() is not None:
            break
    stop(process)
    errors.seek(0)
    raise AssertionError(f"mem browse printed no URL: {seen!r} {errors.read()!r}")


def stop(process: subprocess.Popen[bytes]) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode
