"""A portfolio's freshness check shares its `stat` calls with forked copies of the process.

The copies' signatures are the ones one process gives, byte for byte, whatever the paths
(files, folders, gone, dangling links) and however they are shared; a copy that fails has
its share worked out again, and a process with other threads never forks.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mem.files import forking, index_sources

KINDS = ["file", "folder", "missing", "dangling link", "link to file", "empty file"]


def forking_on(patch: pytest.MonkeyPatch, cores: int) -> list[int]:
    """Copies on `cores` cores for any batch; the list fills with a 1 a fork."""
    forks: list[int] = []
    fork = os.fork

    def counted() -> int:
        forks.append(1)
        return fork()

    patch.setattr(os, "fork", counted)
    # pytest-xdist's workers run an idle thread of their own while a test runs.
    patch.setattr(threading, "active_count", lambda: 1)
    patch.setattr(forking, "cores", lambda: cores)
    patch.setattr(index_sources, "PATHS_PER_PROCESS", 1)
    return forks


def make(root: Path, kinds: list[str]) -> list[str]:
    paths = []
    for number, kind in enumerate(kinds):
        path = root / f"{number}-{kind.replace(' ', '-')}"
        if kind == "file":
            path.write_text("x" * number)
        elif kind == "empty file":
            path.touch()
        elif kind == "folder":
            path.mkdir()
        elif kind == "dangling link":
            path.symlink_to(root / "nowhere")
        elif kind == "link to file":
            (root / f"{number}-target").write_text("target")
            path.symlink_to(root / f"{number}-target")
        paths.append(str(path))
    return paths


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=2, max_size=24), cores=st.integers(2, 5))
def test_shared_stat_calls_give_the_one_process_signature(
    tmp_path_factory: pytest.TempPathFactory, kinds: list[str], cores: int
) -> None:
    paths = make(tmp_path_factory.mktemp("watched"), kinds)
    alone = index_sources.watch_signatures(paths)
    with pytest.MonkeyPatch.context() as patch:
        forks = forking_on(patch, cores)
        shared = index_sources.watch_signatures(paths)
    assert forks, "no copy was forked: the test would prove nothing"
    assert shared == alone
    assert shared is not None and len(shared) == len(paths) * index_sources.SIGNATURE_BYTES


def test_a_change_in_a_copys_share_changes_the_signature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make(tmp_path, ["file"] * 6)
    forks = forking_on(monkeypatch, 3)
    before = index_sources.watch_signatures(paths)
    Path(paths[0]).write_text("edited in place, same folder")  # the first copy's share
    after = index_sources.watch_signatures(paths)
    assert len(forks) == 4
    assert before != after
    size = index_sources.SIGNATURE_BYTES
    assert before is not None and after is not None
    assert before[:size] != after[:size] and before[size:] == after[size:]


def test_a_number_beyond_64_bits_in_any_share_asks_each_root_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make(tmp_path, ["file"] * 4)
    forking_on(monkeypatch, 2)
    real = os.stat

    def huge_inode_for_the_first(path: str, *args: object, **kwargs: object) -> os.stat_result:
        info = real(path)
        if path != paths[0]:
            return info
        fields = list(info[:10]) + [info.st_atime, info.st_mtime, info.st_ctime]
        fields[1] = 2**64 + 1
        return os.stat_result(fields, {"st_mtime_ns": info.st_mtime_ns, "st_ctime_ns": 1})

    monkeypatch.setattr(os, "stat", huge_inode_for_the_first)
    assert index_sources.watch_signatures(paths) is None


def test_a_copy_that_fails_has_its_share_worked_out_here() -> None:
    parent = os.getpid()

    def work(share: Sequence[int]) -> bytes:
        if os.getpid() != parent:
            raise RuntimeError("a copy's failure")
        return bytes(share)

    with pytest.MonkeyPatch.context() as patch:
        forks = forking_on(patch, 3)
        assert forking.map_shares(work, list(range(9)), 1) == [
            bytes([0, 1, 2]),
            bytes([3, 4, 5]),
            bytes([6, 7, 8]),
        ]
    assert len(forks) == 2


def test_an_error_everywhere_is_raised_here() -> None:
    def work(share: Sequence[int]) -> bytes:
        raise PermissionError(f"cannot read {len(share)} paths")

    with pytest.MonkeyPatch.context() as patch:
        forking_on(patch, 2)
        with pytest.raises(PermissionError, match="cannot read"):
            forking.map_shares(work, list(range(8)), 1)


def test_shares_are_never_smaller_than_asked_and_threads_never_fork(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forks = forking_on(monkeypatch, 4)
    pids = forking.map_shares(lambda share: str(os.getpid()).encode(), list(range(10)), 4)
    assert len(pids) == 2 and len(forks) == 1  # 10 items, at least 4 a share: two shares
    assert pids[0] != pids[1] and pids[1] == str(os.getpid()).encode()
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert forking.map_shares(lambda share: bytes(share), list(range(10)), 1) == [bytes(range(10))]
    assert len(forks) == 1
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(os, "fork", _refused)
    assert forking.map_shares(lambda share: bytes(share), list(range(4)), 1) == [
        bytes([0]),
        bytes([1]),
        bytes([2]),
        bytes([3]),
    ]


def _refused() -> int:
    raise BlockingIOError(11, "Resource temporarily unavailable")
