from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture()
def scratch() -> Iterator[Path]:
    """A folder for a property test's examples, and the cache in it: hypothesis runs every
    example in one call of the test, so tmp_path and monkeypatch are shared by all of them."""
    directory = Path(tempfile.mkdtemp(prefix="mem-pruning-"))
    previous = os.environ.get("MEM_CACHE_DIR")
    os.environ["MEM_CACHE_DIR"] = str(directory / "cache")
    try:
        yield directory
    finally:
        if previous is None:
            del os.environ["MEM_CACHE_DIR"]
        else:
            os.environ["MEM_CACHE_DIR"] = previous
        shutil.rmtree(directory)
