"""Running `mem` in a test: in this process through click's CliRunner, or as the console script."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner, Result

RunMem = Callable[..., subprocess.CompletedProcess[str]]


def mem_command() -> list[str]:
    """The installed console script, the real entry point users run."""
    script = Path(sys.executable).with_name("mem")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mem"]


def in_process(
    *args: str,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`mem <args>` through the click group in this process: the exit code, stdout and
    stderr the console script gives (the CLI tests check they agree)."""
    from mem.cli import app

    saved = {key: os.environ.get(key) for key in env or {}}
    os.environ.update(env or {})
    time.tzset()  # a subprocess reads TZ at start; this process must be told
    try:
        with contextlib.chdir(cwd or os.getcwd()):
            runner = CliRunner(catch_exceptions=False)
            done = runner.invoke(app.cli, list(args), prog_name="mem", input=input)
    finally:
        for key, value in saved.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value
        time.tzset()
    return subprocess.CompletedProcess(["mem", *args], done.exit_code, done.stdout, done.stderr)


class _Ended(Exception):
    """The console script called os._exit: where its process would have ended at once."""

    def __init__(self, status: int) -> None:
        self.status = status


def console_script_in_process(
    *args: str, cwd: Path | str, env: dict[str, str], input: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """`mem <args>` through the console script's own `main` (`mem.cli.main:main`: its fast
    paths, its stream set-up, its exit) in this process, with exactly the environment `env`,
    this argv, cwd and standard streams of its own: the exit code and the bytes its process
    would write. Where the process would end at once (os._exit), this one ends the call
    instead; a child it forks still ends as it would."""
    from mem.cli import main as console_script

    out, err = io.BytesIO(), io.BytesIO()
    # As Python sets up a process's streams on a pipe (stderr: backslashreplace, by line).
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict")
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", line_buffering=True)
    stdin = io.TextIOWrapper(io.BytesIO(input), encoding="utf-8")
    saved_env = dict(os.environ)
    saved = (sys.argv, sys.stdin, sys.stdout, sys.stderr, os._exit)
    parent = os.getpid()

    def end_at_once(status: int) -> None:
        if os.getpid() != parent:  # a forked child ends as it always does
            saved[4](status)
        raise _Ended(status)

    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    sys.argv, sys.stdin, sys.stdout, sys.stderr = ["mem", *args], stdin, stdout, stderr
    os._exit = end_at_once  # type: ignore[assignment]
    try:
        with contextlib.chdir(cwd):
            console_script.main()
    except _Ended as ended:
        code = ended.status
    except SystemExit as exit:
        code = _exit_status(exit.code, stderr)
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr, os._exit = saved
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()
        gc.unfreeze()  # the fast path freezes what it has loaded, for its process's life
        gc.enable()
    stdout.flush()
    stderr.flush()
    return subprocess.CompletedProcess(["mem", *args], code, out.getvalue(), err.getvalue())


def script_in_process(
    *args: str,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`mem <args>` as `as_process` runs it (this environment with `env` over it, text in and
    out with universal newlines), through the console script's `main` in this process: its
    click-free paths (a plain recall, a host's hook) and its streams, without the start-up."""
    done = console_script_in_process(
        *args,
        cwd=cwd or os.getcwd(),
        env={**os.environ, **(env or {})},
        input=(input or "").encode(),
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, _text(done.stdout), _text(done.stderr)
    )


def _text(data: bytes) -> str:
    """Output read as `subprocess.run(..., text=True)` reads it."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()


def _exit_status(code: object, stderr: io.TextIOWrapper) -> int:
    """The status a process gets from `sys.exit(code)` (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    stderr.write(f"{code}\n")
    return 1


def as_process(
    *args: str,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """`mem <args>` as the installed console script, in a process of its own."""
    return subprocess.run(
        [*mem_command(), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        input=input,
        check=False,
        timeout=timeout,
    )


def runs_in_one_process(runs: list[dict[str, object]]) -> subprocess.Popen[str]:
    """A process, started, that runs `mem` once for each run given (its "args", and "env" and
    "cwd" if it has them), in order, and prints a JSON list of [exit code, stdout, stderr]
    (read it with `answers`): a writer of a stress test, without a start-up per write."""
    script = Path(__file__).with_name("runs_in_one_process.py")
    return subprocess.Popen(
        [sys.executable, str(script), json.dumps(runs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def write_args(agent: str, task: str, *more: str) -> list[str]:
    """`mem write --agent AGENT --task TASK ...`'s arguments."""
    return ["write", "--agent", agent, "--task", task, *more]


def answers(process: subprocess.Popen[str]) -> list[tuple[int, str, str]]:
    """What each run of a `runs_in_one_process` process gave; the process must end well."""
    output, errors = process.communicate()
    assert process.returncode == 0, errors
    return [(code, out, err) for code, out, err in json.loads(output)]


def invoke(*args: str, input: str | None = None) -> Result:
    """`mem <args>` through the click group, exactly as the console script runs it."""
    from mem.cli import app

    runner = CliRunner(catch_exceptions=False)
    return runner.invoke(app.cli, list(args), prog_name="mem", input=input)


class FakeTerminal:
    """A stderr stand-in for progress tests: a terminal or not, keeping what is written."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.text = ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass
