"""The real agent hosts the tests in tests/hosts/ run: pinned npm packages in a cache directory.

`make hosts` runs this file, which installs them (`npm install --prefix DIR`) unless DIR
already holds these versions. DIR is `$MEM_TEST_HOSTS`, else
`${XDG_CACHE_HOME:-~/.cache}/mem-test-hosts/<hash of the pins>`, so a new pin gets a
directory of its own and an old one stays usable. Serena, whose memories `mem import`
reads, is a Python tool: pinned too, in a virtual environment of its own beside DIR
(`$MEM_TEST_SERENA` instead).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.mock_model import MockModel

# The command each package installs -> the package, pinned.
PACKAGES = {
    "claude": ("@anthropic-ai/claude-code", "2.1.197"),
    "codex": ("@openai/codex", "0.171.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
}
SERENA = ("serena-agent", "2.1.0")
INSTALL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 120


@dataclass(slots=True, frozen=True)
class NotedProject:
    root: Path
    pooling: str  # the heading of the note the prompt asks about
    retries: str  # the heading of the note that names the file the model edits
    edited: Path  # the file the scripted edit changes
    after_edit: str  # what it holds once the host made the edit


@dataclass(slots=True, frozen=True)
class HostRun:
    """One headless run of a host on the project, and what its model was sent."""

    project: NotedProject
    model: MockModel


@dataclass(slots=True, frozen=True)
class ColdRun:
    """One headless run of a host on a fresh clone whose mem cache is empty (issue 35)."""

    model: MockModel
    hook_times: list[str]  # "<event> <ms>" per hook the host ran, in the order they ended
    seconds: float  # the host's whole run
    notes: int  # the project's size
    note: str  # the heading of the note the prompt asks about


@dataclass(slots=True, frozen=True)
class Remembered:
    """A host's headless run that wrote a memory, and the environment to import it in."""

    project: NotedProject
    model: MockModel
    env: dict[str, str]


def directory() -> Path:
    override = os.environ.get("MEM_TEST_HOSTS")
    if override:
        return Path(override)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    pins = " ".join(f"{name}@{version}" for name, version in sorted(PACKAGES.values()))
    return Path(cache) / "mem-test-hosts" / hashlib.sha256(pins.encode()).hexdigest()[:12]


def problem(command: str, folder: Path) -> str | None:
    """Why `command` cannot run from `folder` as pinned, or None when it can."""
    package, version = PACKAGES[command]
    binary = folder / "node_modules" / ".bin" / command
    if not os.access(binary, os.X_OK):
        return f"{binary} is absent: run `make hosts` (or set MEM_TEST_HOSTS to its prefix)"
    try:
        installed = json.loads((folder / "node_modules" / package / "package.json").read_bytes())
    except (OSError, ValueError) as error:
        return f"{package} in {folder} has no readable package.json: {error}"
    found = installed.get("version")
    if found != version:
        return f"{package} in {folder} is {found}, pinned {version}: run `make hosts`"
    return None


def serena_directory() -> Path:
    override = os.environ.get("MEM_TEST_SERENA")
    if override:
        return Path(override)
    return directory().parent / f"{SERENA[0]}-{SERENA[1]}"


def serena_problem(folder: Path) -> str | None:
    """Why Serena cannot run from the virtual environment `folder` as pinned, or None."""
    binary = folder / "bin" / "serena"
    if not os.access(binary, os.X_OK):
        return f"{binary} is absent: run `make hosts` (or set MEM_TEST_SERENA to its venv)"
    installed = sorted(path.name for path in folder.glob("lib/*/site-packages/serena_agent-*"))
    if installed != [f"serena_agent-{SERENA[1]}.dist-info"]:
        return (
            f"{folder} holds {installed or 'no serena-agent'}, pinned {SERENA[1]}: run `make hosts`"
        )
    return None


# Where a host would reach past the loopback model: a closed port on 127.0.0.1.
CLOSED_PROXY = "http://127.0.0.1:9"


def scratch_env(scratch: Path, home: Path, path: str) -> dict[str, str]:
    """A host's environment in a scratch directory: its own home, mem's cache and state,
    mem's pinned clock, PATH as given, and every proxy a closed loopback port (anything
    but 127.0.0.1 fails at once)."""
    return {
        "PATH": path,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "MEM_CACHE_DIR": str(scratch / "mem-cache"),
        "MEM_STATE_DIR": str(scratch / "mem-state"),
        "MEM_NOW": os.environ["MEM_NOW"],
        "HTTP_PROXY": CLOSED_PROXY,
        "HTTPS_PROXY": CLOSED_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
    }


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A host's headless run, bounded; it must succeed."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done


def install(folder: Path) -> None:
    _install_npm(folder)
    _install_serena(serena_directory())


def _install_npm(folder: Path) -> None:
    if not any(problem(command, folder) for command in PACKAGES):
        print(f"hosts: {folder} (already installed)")
        return
    if shutil.which("npm") is None:
        sys.exit("hosts: npm is missing: install Node.js 20 or newer (Gemini CLI needs 20)")
    folder.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}@{version}" for name, version in PACKAGES.values()]
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), *pins],
        check=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    failures = [reason for command in PACKAGES if (reason := problem(command, folder))]
    if failures:
        sys.exit("hosts: " + "; ".join(failures))
    print(f"hosts: {folder}")


def _install_serena(folder: Path) -> None:
    if serena_problem(folder) is None:
        print(f"hosts: {folder} (already installed)")
        return
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    pin = f"{SERENA[0]}=={SERENA[1]}"
    subprocess.run(
        [str(folder / "bin" / "pip"), "install", "--quiet", pin],
        check=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    reason = serena_problem(folder)
    if reason:
        sys.exit(f"hosts: {reason}")
    print(f"hosts: {folder}")


if __name__ == "__main__":
    install(directory())
