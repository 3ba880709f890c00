"""The click CLI in-process, for the tests where a subprocess is not the point."""

from __future__ import annotations

from click.testing import CliRunner, Result

from mem.cli import app


def invoke(*args: str, input: str | None = None) -> Result:
    """`mem <args>` through the click group, exactly as the console script runs it."""
    runner = CliRunner(catch_exceptions=False)
    return runner.invoke(app.cli, list(args), prog_name="mem", input=input)
