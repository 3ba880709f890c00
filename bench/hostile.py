#!/usr/bin/env python3
"""Issue 35's hostile campaigns, run again on the working tree: a report, not a test (minutes,
and the full-disk and read-only ones mount a tmpfs, so they need root; without it they are
skipped and said so). `make test` does not run it; each failure it found has its own test.

    python bench/hostile.py [--mem PATH] [--kills N] [--only NAME,...]

Campaigns: kill -9 during writes (`note add`, `write`, `observe`: nothing lost, torn or
doubled), a full disk (a 1 MiB tmpfs), a read-only project (a read-only bind mount), bad
bytes (invalid UTF-8, BOM, CRLF, a FIFO, lone surrogates) in the files and in the hooks'
stdin, git merges in the team layout with and without .gitattributes, secrets through every
write path, and malformed JSON-RPC to `mem mcp`. Each try is "held" when mem did what
docs/trust.md says (a clean message, exit 0 or 1, no traceback, nothing lost), else
"failed" with what happened. Prints the table (campaign / tried / held / failed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEMO = REPO / "fixtures" / "demo"
sys.path.insert(0, str(REPO / "tests"))

MEM_NOW = "2026-10-18T09:30:00.000Z"
TOKENS = {  # kind -> a token of that shape (made up; none is live)
    "github": "ghp_" + "Zq8Lm2Np4Rt6Vx8Bz0Cd2Fg4Hj6Kl8Mn0PqRs",
    "aws": "AKIA" + "QZ7R4M2N8P6L3K5J",
    "slack": "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "openai": "sk-proj-" + "Zq8Lm2Np4Rt6Vx8Bz0Cd2Fg4Hj6Kl8Mn0PqRs2Tu4Vw6Xy8Ab",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private key": "-----BEGIN RSA PRIVATE KEY-----\n"
    + "MIIEowIBAAKCAQEAz8Lm2Np4Rt6Vx8Bz0Cd2Fg4Hj6Kl8Mn0PqRs2Tu4Vw6Xy8AbCd\n" * 5
    + "-----END RSA PRIVATE KEY-----",
    "stripe": "sk_live_" + "Zq8Lm2Np4Rt6Vx8Bz0Cd2Fg4",
}


class Tally:
    def __init__(self) -> None:
        self.rows: dict[str, list[int]] = {}
        self.failures: list[str] = []

    def check(self, campaign: str, held: bool, what: str) -> None:
        row = self.rows.setdefault(campaign, [0, 0])
        row[0] += 1
        row[1] += bool(held)
        if not held:
            self.failures.append(f"{campaign}: {what}")

    def table(self) -> str:
        lines = ["| campaign | tried | held | failed |", "|---|---:|---:|---:|"]
        for name, (tried, held) in self.rows.items():
            lines.append(f"| {name} | {tried} | {held} | {tried - held} |")
        return "\n".join(lines)


class Mem:
    def __init__(self, exe: str, work: Path) -> None:
        self.exe = exe
        self.env = {
            **os.environ,
            "MEM_CACHE_DIR": str(work / "cache"),
            "MEM_STATE_DIR": str(work / "state"),
            "MEM_NOW": MEM_NOW,
        }

    def __call__(
        self, *args: str, cwd: Path | None = None, stdin: bytes = b"", timeout: float = 60
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [self.exe, *args],
            cwd=cwd,
            env=self.env,
            input=stdin,
            capture_output=True,
            timeout=timeout,
        )

    def popen(self, *args: str, cwd: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [self.exe, *args],
            cwd=cwd,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )


def clean(done: subprocess.CompletedProcess[bytes], codes: tuple[int, ...] = (0, 1)) -> bool:
    """Exited as documented: 0 or 1, no traceback."""
    return done.returncode in codes and b"Traceback" not in done.stderr + done.stdout


def demo(work: Path, name: str) -> Path:
    target = work / name
    shutil.copytree(DEMO, target, symlinks=True)
    (target / "README.md").write_text("handoff text\n" * 20)
    return target


# --- kill -9 during writes ------------------------------------------------------------


def kills(mem: Mem, work: Path, tally: Tally, count: int) -> None:
    from support.nexus import clone_run, relocated, write_observation

    rng = random.Random(35)
    project = relocated("a-accepted", work)
    shutil.copytree(DEMO / ".agents", project / ".agents", dirs_exist_ok=True)
    for number in range(count):
        clone_run(project, "one", f"k{number}")
    finished: dict[str, set[str]] = {"note": set(), "write": set(), "observe": set()}
    killed = 0
    started = time.monotonic()
    mem("write", "--agent", "kills", "--task", "first", cwd=project)
    runtime = time.monotonic() - started  # kills land anywhere from the start to past the end
    for number in range(count):
        kind = ("note", "write", "observe")[number % 3]
        tag = f"kill{number:04d}"
        if kind == "note":
            args = ["note", "add", "lesson", "--title", tag, "--body", f"body of {tag} " * 20]
        elif kind == "write":
            args = ["write", "--agent", "kills", "--task", tag]
        else:
            name = write_observation(project, f"obs-{tag}.json", runId=f"k{number}")
            args = ["observe", "--input", name]
        process = mem.popen(*args, cwd=project)
        time.sleep(rng.uniform(0.0, 3 * runtime))
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        code = process.wait()
        killed += code == -signal.SIGKILL
        stderr = process.stderr.read() if process.stderr else b""
        if code == 0:
            finished[kind].add(tag if kind != "observe" else f"k{number}")
        elif code == 1 and b"lock" in stderr.lower():
            mem("unlock", cwd=project)  # a writer killed holding the lock
        tally.check("kill -9 during writes", b"Traceback" not in stderr, f"{args}: {stderr!r}")
    mem("unlock", cwd=project)
    print(f"  {killed} of {count} writers killed mid-way, the others finished", flush=True)
    # Nothing lost (each finished write is there), torn (every line whole, each section
    # complete) or doubled (once each).
    journal = (project / ".bmad/memory/journal.ndjson").read_bytes()
    tasks: list[str] = []
    for line in journal.split(b"\n"):
        if line.strip():
            try:
                tasks.append(json.loads(line).get("task", ""))
            except ValueError:
                tally.check("kill -9 during writes", False, f"torn journal line {line[:80]!r}")
    for tag in finished["write"]:
        count_ = tasks.count(tag)
        tally.check("kill -9 during writes", count_ == 1, f"write {tag}: {count_}x")
    lessons = (project / ".agents/memory/lessons.md").read_text(encoding="utf-8")
    for number in range(count):
        tag = f"kill{number:04d}"
        heads = lessons.count(f" {tag}\n")
        if tag in finished["note"] or heads:
            body_ok = lessons.count(f"body of {tag} " * 20) == heads
            tally.check(
                "kill -9 during writes",
                heads == 1 and body_ok,
                f"note {tag}: {heads} headings, body whole {body_ok}",
            )
    outcomes = project / ".bmad/memory/outcomes.ndjson"
    runs: list[str] = []
    if outcomes.exists():
        for line in outcomes.read_bytes().split(b"\n"):
            if line.strip():
                try:
                    runs.append(json.dumps(json.loads(line)))
                except ValueError:
                    tally.check("kill -9 during writes", False, f"torn receipt {line[:80]!r}")
    for run in finished["observe"]:
        held = sum(f'"{run}"' in line for line in runs) == 1
        tally.check("kill -9 during writes", held, f"observe {run} not once")
    after = mem("write", "--agent", "kills", "--task", "after", cwd=project)
    tally.check("kill -9 during writes", clean(after, (0,)), f"write after: {after.stderr!r}")


# --- full disk and read-only --------------------------------------------------------------


@contextlib.contextmanager
def mounted(path: Path, *options: str) -> Iterator[bool]:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", *options, str(path)], capture_output=True)
    try:
        yield done.returncode == 0
    finally:
        if done.returncode == 0:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)


WRITES = [
    ["write", "--agent", "a", "--task", "disk full task"],
    ["note", "add", "decision", "--title", "Disk full decision", "--body", "x" * 400],
    ["handoff", "--topic", "disk full", "--from", "README.md"],
    ["reinforce", "--pattern", "Retry budget", "--ci", "pass"],
    ["supersede", "--help"],
    ["init"],
    ["init", "--agents"],
    ["export", "--output", "export.json"],
]
READS = [["recall", "pooling"], ["status"], ["context", "--json"], ["index", "check"]]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "cache" not in path.parts
    }


def full_disk(mem: Mem, work: Path, tally: Tally) -> None:
    disk = work / "full"
    with mounted(disk, "-t", "tmpfs", "-o", "size=1m", "tmpfs") as ok:
        if not ok:
            tally.check("full disk (1 MiB tmpfs)", False, "could not mount a tmpfs (not root?)")
            return
        project = disk / "p"
        shutil.copytree(DEMO, project, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        (project / "README.md").write_text("handoff text\n" * 20)
        filler = disk / "filler"
        with contextlib.suppress(OSError), open(filler, "wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
        for trim in (0, 256, 2048):  # no byte left, a few, a little more than one append
            if trim:
                size = filler.stat().st_size
                os.truncate(filler, max(0, size - trim))
            for args in WRITES:
                before = snapshot(project)
                done = mem(*args, cwd=project)
                after = snapshot(project)
                # Either it wrote, or it said so and left nothing behind (lock, temp file,
                # empty handoff).
                wrote = done.returncode == 0
                leftovers = [
                    name
                    for name in after
                    if name not in before and (name.endswith((".tmp", ".lock")) or not after[name])
                ]
                held = (
                    clean(done)
                    and not leftovers
                    and (wrote or after == before or b"nothing" in done.stderr)
                )
                tally.check(
                    "full disk (1 MiB tmpfs)",
                    held,
                    f"{args} (trim {trim}): exit {done.returncode} {done.stderr[-300:]!r},"
                    f" left {leftovers}",
                )
            for args in READS:
                done = mem(*args, cwd=project)
                tally.check("full disk (1 MiB tmpfs)", clean(done), f"{args}: {done.stderr!r}")
    # The cache on the full disk: reads answer from a temporary index.
    with mounted(work / "fullcache", "-t", "tmpfs", "-o", "size=64k", "tmpfs") as ok:
        if ok:
            project = demo(work, "cache-full")
            env = dict(mem.env)
            mem.env["MEM_CACHE_DIR"] = str(work / "fullcache")
            with contextlib.suppress(OSError), open(work / "fullcache" / "f", "wb") as handle:
                handle.write(b"\0" * 200_000)
            for args in READS:
                done = mem(*args, cwd=project)
                tally.check("full disk (1 MiB tmpfs)", clean(done), f"cache full {args}")
            mem.env = env


def read_only(mem: Mem, work: Path, tally: Tally) -> None:
    source = demo(work, "ro-source")
    view = work / "ro"
    with mounted(view, "--bind", str(source)) as ok:
        if not ok:
            tally.check("read-only project", False, "could not bind-mount (not root?)")
            return
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True)
        before = snapshot(source)
        for args in WRITES:
            done = mem(*args, cwd=view)
            said = (
                done.returncode == 0
                and args[-1] == "--help"
                or (done.returncode == 1 and b"Read-only" in done.stderr + done.stdout)
            )
            tally.check("read-only project", clean(done) and said, f"{args}: {done.stderr!r}")
        for args in READS:
            done = mem(*args, cwd=view)
            tally.check("read-only project", clean(done, (0,)), f"{args}: {done.stderr!r}")
        for event, field in (("session-start", "source"), ("prompt", "prompt")):
            asked = "How should the api configure postgres connection pooling?"
            payload = json.dumps({"cwd": str(view), "session_id": f"ro-{event}", field: asked})
            done = mem("hook", event, "--host", "claude-code", stdin=payload.encode())
            tally.check(
                "read-only project",
                done.returncode == 0 and not done.stderr and done.stdout,
                f"hook {event}: {done.stdout[:80]!r} {done.stderr!r}",
            )
        done = mem("doctor", "merge", cwd=view)
        tally.check("read-only project", clean(done), f"doctor merge: {done.stderr!r}")
        tally.check("read-only project", snapshot(source) == before, "a file changed")


# --- bad bytes --------------------------------------------------------------------------


BAD_FILES: dict[str, bytes | None] = {
    "invalid UTF-8": b"# Decisions\n\n### Pooling \xff\xfe\n- **Decision**: pgbouncer \xc3\n",
    "BOM": b"\xef\xbb\xbf### Pooling with a BOM\n- **Decision**: pgbouncer\n",
    "CRLF": b"# Decisions\r\n\r\n### Pooling CRLF\r\n- **Decision**: pgbouncer\r\n",
    "lone surrogate (escaped)": b"### Pooling \\ud800\n- **Decision**: \xed\xa0\x80 pgbouncer\n",
    "NUL bytes": b"### Pooling\0\n- **Decision**: \0\0 pgbouncer\n",
    "FIFO": None,
}
BAD_COMMANDS = [
    ["recall", "pooling"],
    ["recall", "pooling", "--json"],
    ["recall", "pooling", "--ranking", "bm25"],
    ["status"],
    ["context", "--json"],
    ["index", "check"],
    ["note", "add", "decision", "--title", "After bad bytes", "--body", "kept"],
    ["audit", "--secrets"],
    ["check", "findability"],
]
BAD_STDIN = [
    b"\xff\xfe\x00garbage",
    b'{"cwd": ".", "prompt": "pool\\ud800ing", "session_id": "\\udc00"}',
    b"\xef\xbb\xbf" + b'{"cwd": ".", "prompt": "pooling"}',
    b'{"cwd": ".", "prompt": "pooling"}\r\n',
    b"[" * 100_000,
    b'{"cwd": ".\\u0000", "prompt": "x"}',
    b'{"cwd": 7, "prompt": ["x"], "session_id": {}}',
    b"",
]


def bad_bytes(mem: Mem, work: Path, tally: Tally) -> None:
    for name, data in BAD_FILES.items():
        project = demo(work, "bad-" + name.split()[0].replace("(", ""))
        target = project / ".agents/memory/decisions.md"
        target.unlink()
        if data is None:
            os.mkfifo(target)
        else:
            target.write_bytes(data)
        for args in BAD_COMMANDS:
            try:
                done = mem(*args, cwd=project, timeout=30)
            except subprocess.TimeoutExpired:
                tally.check("bad bytes in files and hook stdin", False, f"{name} {args}: hung")
                continue
            tally.check(
                "bad bytes in files and hook stdin",
                clean(done),
                f"{name} {args}: exit {done.returncode} {done.stderr[-300:]!r}",
            )
            if data is not None and args[0] == "recall" and "--json" in args and done.stdout:
                tally.check(
                    "bad bytes in files and hook stdin",
                    b"\\r" not in done.stdout or name != "CRLF",
                    f"{name}: recall --json shows \\r (item 12, golden case 08)",
                )
        for event in ("session-start", "prompt", "pre-edit"):
            for payload in BAD_STDIN:
                payload = payload.replace(b'"."', json.dumps(str(project)).encode())
                started = time.monotonic()
                done = mem("hook", event, "--host", "gemini", stdin=payload, cwd=project)
                took = time.monotonic() - started
                tally.check(
                    "bad bytes in files and hook stdin",
                    done.returncode == 0 and not done.stderr and took < 25,
                    f"{name} hook {event} {payload[:40]!r}: {done.returncode} {done.stderr!r}",
                )
        log = Path(mem.env["MEM_STATE_DIR"]) / "hook.log"
        if log.exists():
            text = log.read_text(encoding="utf-8", errors="replace")
            tally.check(
                "bad bytes in files and hook stdin",
                "Traceback" not in text,
                f"{name}: a traceback in hook.log: {text[text.find('Traceback') :][:400]}",
            )
            log.unlink()


# --- git merges in the team layout ------------------------------------------------------


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True)


def merges(mem: Mem, work: Path, tally: Tally) -> None:
    for attributes in (True, False):
        origin = work / f"team-{attributes}"
        origin.mkdir()
        git(origin, "init", "-q", "-b", "main")
        mem("init", "--team", cwd=origin)
        mem("init", "--agents", "--team", cwd=origin)
        if not attributes:
            (origin / ".gitattributes").unlink(missing_ok=True)
        git(origin, "add", "-A")
        git(origin, "commit", "-qm", "init")
        for round_ in range(4):
            for side in ("a", "b"):
                git(origin, "checkout", "-q", "-b", f"{side}{round_}", "main")
                for number in range(3):
                    mem("write", "--agent", side, "--task", f"{side}{round_} {number}", cwd=origin)
                    mem(
                        "note",
                        "add",
                        "decision",
                        "--title",
                        f"{side}{round_} choice {number}",
                        "--body",
                        "why",
                        cwd=origin,
                    )
                git(origin, "add", "-A")
                git(origin, "commit", "-qm", f"{side}{round_}")
                git(origin, "checkout", "-q", "main")
            for side in ("a", "b"):
                done = git(origin, "merge", "-q", "--no-edit", f"{side}{round_}")
                conflict = done.returncode != 0
                if conflict:
                    git(origin, "merge", "--abort")
                label = "git merges, team layout" + ("" if attributes else ", no .gitattributes")
                tally.check(label, not conflict, f"round {round_} {side}: {done.stdout!r}")
        status = mem("status", "--json", cwd=origin)
        recall = mem("recall", "choice", "--limit", "100", "--json", cwd=origin)
        label = "git merges, team layout" + ("" if attributes else ", no .gitattributes")
        tally.check(label, clean(status, (0,)) and clean(recall, (0,)), "status/recall after")


# --- secrets ------------------------------------------------------------------------------


def secrets(mem: Mem, work: Path, tally: Tally) -> None:
    project = demo(work, "secrets")
    for kind, token in TOKENS.items():
        text = f"deploy with {token} please"
        paths = [
            ["write", "--agent", "a", "--task", text],
            ["write", "--agent", "a", "--task", "t", "--model", token],
            ["note", "add", "decision", "--title", text],
            ["note", "add", "lesson", "--title", "Safe title", "--body", text],
            ["handoff", "--topic", text, "--from", "README.md"],
            ["reinforce", "--pattern", text, "--ci", "pass"],
        ]
        (project / "README.md").write_text(text)
        for args in paths:
            before = snapshot(project)
            done = mem(*args, cwd=project)
            after = snapshot(project)
            changed = [name for name in after if after.get(name) != before.get(name)]
            leaked = any(token.encode()[:20] in after[name] for name in changed)
            tally.check(
                "secrets on every write path",
                clean(done) and not leaked,
                f"{kind} via {args[:3]}: exit {done.returncode}, stored in {changed}",
            )
        stdin = mem(
            "note",
            "add",
            "pattern",
            "--title",
            "Piped",
            "--stdin",
            cwd=project,
            stdin=text.encode(),
        )
        tally.check(
            "secrets on every write path",
            stdin.returncode == 1,
            f"{kind} via note add --stdin: exit {stdin.returncode}",
        )
        for tool, arguments in (
            ("write", {"agent": "a", "task": text}),
            ("note_add", {"kind": "decision", "title": text, "body": "b"}),
        ):
            request = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": tool, "arguments": {**arguments, "directory": str(project)}},
            }
            answers = mcp_session(mem, [json.dumps(request).encode()])
            said = answers[-1] if answers else {}
            refused = "error" in said or said.get("result", {}).get("isError") is True
            tally.check("secrets on every write path", refused, f"{kind} via MCP {tool}: {said}")
    audit = mem("audit", "--secrets", cwd=project)
    tally.check("secrets on every write path", audit.returncode == 0, f"audit: {audit.stdout!r}")


# --- MCP ----------------------------------------------------------------------------------


def mcp_session(mem: Mem, lines: list[bytes], timeout: float = 60) -> list[dict]:
    from support.mcp_wire import opening  # the handshake the MCP tests send

    data = opening() + b"".join(line + b"\n" for line in lines)
    done = subprocess.run(
        [mem.exe, "mcp"],
        input=data,
        capture_output=True,
        env=mem.env,
        timeout=timeout,
        cwd=DEMO,
    )
    answers = []
    for line in done.stdout.split(b"\n"):
        if line.strip():
            try:
                answers.append(json.loads(line))
            except ValueError:
                answers.append({"unparsed": line[:200].decode("utf-8", "replace")})
    return answers


MALFORMED = [
    b"not json",
    b"\xff\xfe",
    b"[]",
    b"[1,2]",
    b"{}",
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":7}',
    b'{"jsonrpc":"2.0","id":8,"method":7}',
    b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1,2]}',
    b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"recall"}}',
    b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope","arguments":{}}}',
    b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"recall","arguments":'
    b'{"query":"\\ud800","directory":"\\u0000"}}}',
    b'{"jsonrpc":"2.0","id":13,"method":"tools/list","params":'
    + b"[" * 50_000
    + b"]" * 50_000
    + b"}",
    b'{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"recall","arguments":'
    b'{"query":"' + b"x " * 2_000_000 + b'"}}}',
    b'{"jsonrpc":"1.0","id":15,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"recall","arguments":'
    b'{"query":"pool","limit":"many"}}}',
    b'{"jsonrpc":"2.0","method":"notifications/unknown"}',
    b'{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"write","arguments":'
    b'{"agent":{"x":1},"task":null}}}',
]


def mcp(mem: Mem, work: Path, tally: Tally) -> None:
    last = json.dumps({"jsonrpc": "2.0", "id": 999, "method": "tools/list"}).encode()
    for line in MALFORMED:
        try:
            answers = mcp_session(mem, [line, last])
        except subprocess.TimeoutExpired:
            tally.check("malformed JSON-RPC to mem mcp", False, f"{line[:60]!r}: hung")
            continue
        served = bool(answers) and answers[-1].get("id") == 999 and "result" in answers[-1]
        tally.check(
            "malformed JSON-RPC to mem mcp",
            served and not any("unparsed" in answer for answer in answers),
            f"{line[:60]!r}: {[str(answer)[:120] for answer in answers[1:]]}",
        )


CAMPAIGNS: dict[str, Callable[[Mem, Path, Tally], None]] = {
    "bad-bytes": bad_bytes,
    "mcp": mcp,
    "secrets": secrets,
    "merges": merges,
    "read-only": read_only,
    "full-disk": full_disk,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mem", default=str(Path(sys.executable).parent / "mem"))
    ap.add_argument("--kills", type=int, default=60, help="writers killed (a third each kind)")
    ap.add_argument("--only", default="", help="comma-separated campaigns (kills too)")
    args = ap.parse_args()
    only = {name for name in args.only.split(",") if name}
    tally = Tally()
    work = Path(tempfile.mkdtemp(prefix="mem-hostile-"))
    try:
        # a relative path would be looked up from each project's directory: anchor it here
        exe = str(Path(args.mem).resolve()) if os.sep in args.mem else args.mem
        mem = Mem(exe, work)
        if not only or "kills" in only:
            print("kill -9 during writes ...", flush=True)
            kills(mem, work, tally, args.kills)
        for name, campaign in CAMPAIGNS.items():
            if not only or name in only:
                print(f"{name} ...", flush=True)
                campaign(mem, work, tally)
    finally:
        for mount in ("full", "fullcache", "ro"):
            subprocess.run(["umount", "-l", str(work / mount)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(tally.table())
    if tally.failures:
        print("\nfailed:")
        for failure in tally.failures:
            print("  - " + failure[:600])


if __name__ == "__main__":
    main()
