"""The `mem` executable: a plain recall takes the click-free path, everything else goes to click."""

from __future__ import annotations

import sys
from typing import NoReturn

from mem.cli.fast import plain_recall, recall_output


def main() -> NoReturn:
    parsed = plain_recall(sys.argv[1:])
    if parsed is None:
        from mem.cli import app

        app.main()
    from mem import render
    from mem.errors import MemError

    words, as_json, options = parsed
    try:
        output = recall_output(words, as_json, options)
    except MemError as error:
        stream, text = render.action_error("recall", str(error), as_json)
        (sys.stdout if stream == "stdout" else sys.stderr).write(text)
        sys.exit(1)
    sys.stdout.write(output)
    sys.exit(0)
