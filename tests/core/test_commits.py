"""Parsing one `git log` stream into commits (mem.core.rules.commits)."""

from __future__ import annotations

from mem.core.rules import commits

A = "a" * 40
B = "b" * 40
C = "c" * 40


def _entry(
    sha: str, time: int, parents: str, message: str, paths: list[str], side: str = ">"
) -> bytes:
    names = "".join(f"{path}\0" for path in paths)
    tail = f"\n{names}" if paths else ""
    return f"\x1e{sha}\0{time}\0{side}\0{parents}\0{message}\0{tail}".encode()


def test_a_stream_gives_each_commit_its_fields_and_paths() -> None:
    data = _entry(A, 20, B, "fix: retry\n\nWhy: the limiter\n", ["src/a.py", "b c.py"])
    data += _entry(B, 10, "", "first\n", ["README"])
    found = commits.parse_log(data)
    assert [c.sha for c in found] == [A, B]
    assert found[0].time == 20 and found[0].parents == (B,)
    assert found[0].message == "fix: retry\n\nWhy: the limiter"
    assert found[0].subject == "fix: retry"
    assert found[0].paths == ("src/a.py", "b c.py")
    assert found[1].paths == ("README",)
    assert not found[0].left


def test_the_left_side_of_a_symmetric_range_is_marked() -> None:
    data = _entry(A, 2, B, "dropped\n", ["x"], side="<") + _entry(C, 3, B, "kept\n", ["x"])
    assert [(c.sha, c.left) for c in commits.parse_log(data)] == [(A, True), (C, False)]


def test_a_path_that_starts_with_a_newline_keeps_it() -> None:
    found = commits.parse_log(_entry(A, 1, "", "odd\n", ["\nname", "b"]))
    assert found[0].paths == ("\nname", "b")


def test_a_message_holding_the_record_separator_does_not_start_a_commit() -> None:
    data = _entry(A, 20, "", "odd \x1e subject\n\nbody \x1e" + B + " text\n", ["x"])
    found = commits.parse_log(data)
    assert len(found) == 1 and "\x1e" in found[0].message


def test_bad_bytes_are_replaced_not_raised() -> None:
    data = _entry(A, 1, "", "caf", []).replace(b"caf", b"caf\xff\xfe")
    assert commits.parse_log(data)[0].message == "caf\ufffd\ufffd"


def test_only_a_merge_without_a_body_is_left_out() -> None:
    merge = commits.Commit(A, 1, (B, C), "Merge branch 'topic'", ())
    merge_with_body = commits.Commit(A, 1, (B, C), "Merge pull request #4\n\nRetry on 429", ())
    plain = commits.Commit(A, 1, (B,), "wip", ())
    assert commits.is_left_out(merge)
    assert not commits.is_left_out(merge_with_body)
    assert not commits.is_left_out(plain)


def test_an_empty_stream_has_no_commits() -> None:
    assert commits.parse_log(b"") == []


def test_a_batch_ends_before_the_last_commit_that_starts_in_it() -> None:
    first, second = _entry(A, 3, "", "one\n", ["x"]), _entry(B, 2, "", "two\n", ["y"])
    data = first + second + _entry(C, 1, "", "three\n", [])
    assert commits.last_start(data) == len(first + second)
    assert [c.sha for c in commits.parse_log(data[: len(first + second)])] == [A, B]
    # a start cut short (a sha half read) is not one yet
    assert commits.last_start(data[: len(first + second) + 10]) == len(first)
    assert commits.last_start(first) == 0
