"""A real headless Chromium, driven through the DevTools protocol over a pipe (no extra deps).

One browser process serves every page of a test module: starting Chromium costs a second
or two, a navigation a few milliseconds. Chromium reads commands on fd 3 and answers on
fd 4, one JSON message per NUL-terminated frame. Only loopback URLs are opened.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from support import REPO

INSTALL_SCRIPT = REPO / ".ci" / "install-chromium"
NAMES = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT = 30.0


def find_chromium() -> str | None:
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_or_reason() -> tuple[str | None, str]:
    """The browser, installing it the way CI does when it is missing and we may; else why not."""
    found = find_chromium()
    if found:
        return found, ""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return None, f"chromium is missing and cannot be installed here (see {INSTALL_SCRIPT})"
    done = subprocess.run(
        [str(INSTALL_SCRIPT)], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    found = find_chromium()
    if found is None:
        return None, f"chromium could not be installed: {done.stderr.strip()[-300:]}"
    return found, ""


class BrowserError(AssertionError):
    pass


class Browser:
    def __init__(self, executable: str, profile: Path) -> None:
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        # The child finds them at fd 3 and 4. Copies above 4 first, so that no dup2 below
        # overwrites a pipe end it still needs; dup2 makes 3 and 4 inheritable, and every
        # other descriptor of ours is close-on-exec, so close_fds=False leaks nothing.
        high = [os.dup(fd) for fd in (commands_read, answers_write)]
        while min(high) <= 4:
            high = [os.dup(fd) for fd in high]

        def wire() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=wire,
        )
        for fd in (commands_read, answers_write, *high):
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self._call("Page.enable", session=True)

    def close(self) -> None:
        try:
            self._call("Browser.close")
        except (BrowserError, OSError):
            pass  # already gone: killing below is all that is left to do
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._answers)

    def open(self, url: str) -> None:
        """Navigate and wait until the page has loaded."""
        self._events.clear()
        result = self._call("Page.navigate", session=True, url=url)
        if result.get("errorText"):
            raise BrowserError(f"{url}: {result['errorText']}")
        self._wait_for("Page.loadEventFired")

    def submit(self, form_selector: str, values: dict[str, str]) -> None:
        """Fill a form's fields by name and submit it as a person would, then wait for the load."""
        self._events.clear()
        script = (
            f"(() => {{ const form = document.querySelector({json.dumps(form_selector)});"
            f" const values = {json.dumps(values)};"
            " for (const [name, value] of Object.entries(values)) {"
            " form.elements[name].value = value; }"
            " form.requestSubmit(); return true; })()"
        )
        self.evaluate(script)
        self._wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self._call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def text(self) -> str:
        """What a person reads on the page."""
        return str(self.evaluate("document.body.innerText"))

    def rows(self) -> list[dict[str, str]]:
        """The rows of the page's results table, as shown: column name -> cell text."""
        return list(
            self.evaluate(
                "(() => { const table = document.querySelector('table.rows-and-columns');"
                " if (!table) return [];"
                " const names = Array.from(table.querySelectorAll('thead th'))"
                ".map(th => th.dataset.column || th.innerText.trim());"
                " return Array.from(table.querySelectorAll('tbody tr')).map(tr =>"
                " Object.fromEntries(Array.from(tr.cells).map((td, i) =>"
                " [names[i], td.innerText.trim()]))); })()"
            )
        )

    def _call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = self._read(deadline, method)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return dict(answer.get("result", {}))
            self._events.append(answer)

    def _wait_for(self, event: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for seen in self._events:
                if seen.get("method") == event and seen.get("sessionId") == self._session:
                    self._events.clear()
                    return
            self._events.append(self._read(deadline, event))

    def _read(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._answers], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"chromium did not answer {waiting_for} in {TIMEOUT} s")
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise BrowserError(f"chromium exited while waiting for {waiting_for}")
            self._buffer += chunk
        frame, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(frame))
