"""Repository identity: canonical remote URLs, and which remote proves it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.git import git

from mem.files import gitrepo


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        # the contract's two examples
        ("git@GitHub.com:Org/Repo.git", "github.com/Org/Repo"),
        ("https://user:tok@github.com/Org/Repo", "github.com/Org/Repo"),
        # scp form
        ("github.com:Org/Repo", "github.com/Org/Repo"),
        ("deploy@gitlab.example.COM:group/sub/project.git", "gitlab.example.com/group/sub/project"),
        ("git@github.com:/Org/Repo.git/", "github.com/Org/Repo"),
        # https with user info, token, upper-case host, trailing slash and .git
        ("https://x-access-token:ghp_secret@GITHUB.COM/Org/Repo.git", "github.com/Org/Repo"),
        ("https://github.com/Org/Repo/", "github.com/Org/Repo"),
        ("https://github.com/Org/Repo.git/", "github.com/Org/Repo"),
        ("http://user@Example.org/a/b", "example.org/a/b"),
        # default ports dropped, others kept
        ("https://github.com:443/Org/Repo.git", "github.com/Org/Repo"),
        ("http://example.org:80/a/b", "example.org/a/b"),
        ("ssh://git@github.com:22/Org/Repo.git", "github.com/Org/Repo"),
        ("ssh://git@github.com/Org/Repo.git", "github.com/Org/Repo"),
        ("git+ssh://git@github.com:22/Org/Repo", "github.com/Org/Repo"),
        ("git://example.org:9418/a/b.git", "example.org/a/b"),
        ("ssh://git@git.example.org:2222/team/repo.git", "git.example.org:2222/team/repo"),
        ("https://git.example.org:8443/team/repo", "git.example.org:8443/team/repo"),
        ("HTTPS://Git.Example.org:443/Team/Repo.git", "git.example.org/Team/Repo"),
        # query strings are not part of the identity; IPv6 hosts keep their brackets
        ("https://example.org/a/b.git?ref=main", "example.org/a/b"),
        ("ssh://git@[::1]:22/a/b.git", "[::1]/a/b"),
        # no host: nothing to prove
        ("/srv/git/repo.git", None),
        ("../sibling/repo", None),
        ("file:///srv/git/repo.git", None),
        ("C:\\repos\\x", None),
        ("https://github.com/", None),
        ("", None),
    ],
)
def test_canonical_url(url: str, canonical: str | None) -> None:
    assert gitrepo.canonical_url(url) == canonical


_NAME = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", min_size=1
)


@given(
    user=_NAME,
    token=_NAME,
    host=st.from_regex(r"[a-z][a-z0-9-]{0,10}\.(com|org|io)", fullmatch=True),
    owner=_NAME,
    repo=_NAME,
    upper=st.booleans(),
)
def test_every_spelling_of_a_remote_has_one_identity(
    user: str, token: str, host: str, owner: str, repo: str, upper: bool
) -> None:
    shown = host.upper() if upper else host
    spellings = [
        f"{user}@{shown}:{owner}/{repo}.git",
        f"https://{user}:{token}@{shown}/{owner}/{repo}",
        f"https://{shown}:443/{owner}/{repo}.git/",
        f"ssh://{user}@{shown}:22/{owner}/{repo}.git",
    ]
    expected = f"{host}/{owner}/{repo}"
    assert {gitrepo.canonical_url(url) for url in spellings} == {expected}


@pytest.mark.parametrize(
    ("remotes", "chosen"),
    [
        ({}, None),
        ({"upstream": ["git@github.com:a/b.git"]}, "git@github.com:a/b.git"),
        ({"origin": ["https://x/a"], "upstream": ["https://x/b"]}, "https://x/a"),
        ({"fork": ["https://x/a"], "upstream": ["https://x/b"]}, None),
        ({"origin": ["https://x/a", "https://y/a"]}, None),
        ({"origin": []}, None),
    ],
)
def test_chosen_url(remotes: dict[str, list[str]], chosen: str | None) -> None:
    assert gitrepo.chosen_url(remotes) == chosen


def _repo(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


@pytest.mark.usefixtures("git_project")
def test_identity_from_real_remotes(tmp_path: Path) -> None:
    none = _repo(tmp_path / "none")
    assert gitrepo.identity(str(none)) == gitrepo.Identity(None, gitrepo.NOT_PROVABLE)

    one = _repo(tmp_path / "one")
    git(one, "remote", "add", "upstream", "https://user:token@GitHub.com:443/Org/Repo.git/")
    assert gitrepo.identity(str(one)).repo == "github.com/Org/Repo"

    several = _repo(tmp_path / "several")
    git(several, "remote", "add", "fork", "git@github.com:me/Repo.git")
    git(several, "remote", "add", "upstream", "git@github.com:Org/Repo.git")
    assert gitrepo.identity(str(several)).repo is None
    git(several, "remote", "add", "origin", "ssh://git@github.com/Org/Repo")
    assert gitrepo.identity(str(several)).repo == "github.com/Org/Repo"


@pytest.mark.usefixtures("git_project")
def test_identity_needs_the_top_level_of_a_work_tree(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", "git@github.com:Org/Repo.git")
    (repo / "sub").mkdir()
    found = gitrepo.identity(str(repo / "sub"))
    assert found.repo is None and "not the top level of a git work tree" in str(found.problem)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert gitrepo.identity(str(plain)).repo is None
    assert gitrepo.recent_commits(str(plain)) is None
    assert gitrepo.recent_commits(str(repo)) == []
