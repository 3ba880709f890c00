"""The hosts' memory formats parsed into candidate notes, and the front matter subset."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mem.core.rules import host_memories
from mem.core.rules.host_memories import HostMemory


def test_front_matter_reads_plain_quoted_and_nested_keys() -> None:
    text = '---\nname: x\ndescription: "A: quoted"\nmetadata:\n  type: feedback\n---\nbody\n'
    assert host_memories.front_matter(text) == (
        {"name": "x", "description": "A: quoted", "metadata.type": "feedback"},
        "body\n",
    )


@pytest.mark.parametrize(
    ("line", "value"),
    [
        # As Claude Code 2.1.197 writes a description holding `: ` and `"`.
        (
            'description: "Pin image tags: never \\"latest\\" in deploy manifests"',
            'Pin image tags: never "latest" in deploy manifests',
        ),
        ('description: "caf\\u00e9 \\\\ tab\\there"', "café \\ tab\there"),
        ("description: 'it''s pinned'", "it's pinned"),
    ],
)
def test_quoted_values_keep_what_their_escapes_say(line: str, value: str) -> None:
    assert host_memories.front_matter(f"---\n{line}\n---\n") == ({"description": value}, "")


def test_a_codex_ad_hoc_note_is_titled_by_its_heading_or_first_line() -> None:
    source = "~/.codex/memories_v2/extensions/ad_hoc/notes/2026-12-07T18-40-00-real-db.md"
    headed = host_memories.codex_ad_hoc_note("# Real database\n\nAdd: tests use it.\n", source, "d")
    assert (headed.title, headed.kind, headed.body) == (
        "Real database",
        "lesson",
        "Add: tests use it.",
    )
    lines = host_memories.codex_ad_hoc_note("Forget: the staging host.\nIt is gone.\n", source, "d")
    assert (lines.title, lines.body) == ("Forget: the staging host.", "It is gone.")
    assert host_memories.codex_ad_hoc_note("\n", source, "d").title == "real db"


def test_a_text_without_front_matter_is_all_body() -> None:
    assert host_memories.front_matter("# Title\nbody") == ({}, "# Title\nbody")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\nname: x\n", "its front matter has no closing `---`"),
        ("---\ntags:\n  - a\n---\n", "front matter line 3 is not a plain `key: value`"),
        ("---\ntags: [a, b]\n---\n", "front matter line 2 is not a plain `key: value`"),
        ("---\ntext: |\n  a\n---\n", "front matter line 2 is not a plain `key: value`"),
        ("---\njust words\n---\n", "front matter line 2 is not a plain `key: value`"),
        ("---\nname: 'it's'\n---\n", "front matter line 2 is not a plain `key: value`"),
        ('---\nname: "a \\x41"\n---\n', "front matter line 2 is not a plain `key: value`"),
        ('---\nname: "\\ud800"\n---\n', "front matter line 2 is not a plain `key: value`"),
    ],
)
def test_front_matter_beyond_the_subset_says_which_line(text: str, why: str) -> None:
    assert host_memories.front_matter(text) == why


@given(st.text(max_size=200))
def test_front_matter_never_raises(text: str) -> None:
    result = host_memories.front_matter("---\n" + text)
    assert isinstance(result, str | tuple)


def test_a_claude_topic_file_is_one_memory_of_its_type() -> None:
    text = (
        "---\nname: feedback-db\ndescription: Tests hit a real database\nmetadata:\n"
        "  type: feedback\n---\n\nUse the compose database.\n\n## How\nmake db\n"
    )
    memory = host_memories.one_file("claude-code", text, "~/m/feedback_db.md", "2026-10-01")
    assert memory == HostMemory(
        "claude-code",
        "~/m/feedback_db.md",
        "Tests hit a real database",
        "lesson",
        "Use the compose database.\n\n**How**\nmake db",
        "2026-10-01",
    )
    assert memory.text().endswith(
        "\n- **Imported**: from claude-code, ~/m/feedback_db.md, 2026-10-01"
    )


@pytest.mark.parametrize("description", ["#\t", "## Why", "#"])
def test_a_description_that_reads_as_a_heading_never_splits_the_note(description: str) -> None:
    """`mem inbox accept` refuses a note text holding a heading line (hypothesis found
    `description: "#\\t"` offered by import, then refused)."""
    quoted = description.replace("\t", "\\t")
    for memory in (
        host_memories.one_file(
            "claude-code", f'---\nname: n\ndescription: "{quoted}"\n---\nbody\n', "f.md", "d"
        ),
        host_memories.codex_skill(
            f'---\nname: n\ndescription: "{quoted}"\n---\nbody\n', "skills/n/SKILL.md", "d"
        ),
    ):
        assert isinstance(memory, HostMemory)
        assert not [line for line in memory.text().split("\n") if re.match(r"#+(\s|$)", line)]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("feedback", "lesson"),
        ("project", "decision"),
        ("user", "lesson"),
        ("reference", "decision"),
    ],
)
def test_each_claude_type_maps_to_a_kind(kind: str, expected: str) -> None:
    text = f"---\nname: n\ntype: {kind}\n---\nbody\n"
    memory = host_memories.one_file("claude-code", text, "f.md", "2026-10-01")
    assert isinstance(memory, HostMemory) and memory.kind == expected


def test_an_unknown_type_is_a_reason_to_skip() -> None:
    text = "---\nname: n\ntype: secret-plan\n---\nbody\n"
    assert host_memories.one_file("claude-code", text, "f.md", "d") == (
        "its type 'secret-plan' is none of feedback, project, user, reference"
    )


def test_an_index_keeps_brief_facts_and_names_the_linked_files() -> None:
    text = "# Memory\n- [Deploy](deploy.md) — how\n- The API answers in UTC.\n"
    memories, linked = host_memories.index_lines("gemini", text, "~/g/MEMORY.md", "d")
    assert linked == ["deploy.md"]
    assert [(m.source, m.title, m.body) for m in memories] == [
        ("~/g/MEMORY.md:3", "The API answers in UTC.", "")
    ]


def test_only_the_gemini_added_memories_section_is_taken() -> None:
    text = "# Rules\n- use make\n\n## Gemini Added Memories\n- flags in flags.yaml\n## Other\n- x\n"
    memories = host_memories.gemini_added(text, "GEMINI.md", "d")
    assert [(m.source, m.title) for m in memories] == [("GEMINI.md:5", "flags in flags.yaml")]


def test_codex_task_groups_of_this_project_only() -> None:
    text = (
        "# Task Group: payments\nscope: s\napplies_to: cwd=/p/app/api; reuse_rule=r\n\n"
        "## Reusable knowledge\n- idempotent handlers\n"
        "# Task Group: elsewhere\napplies_to: cwd=/p/application\n"
    )
    memories, left = host_memories.codex_task_groups(text, "MEMORY.md", "d", "/p/app")
    assert left == 1
    (memory,) = memories
    assert (memory.title, memory.kind, memory.source) == ("payments", "lesson", "MEMORY.md:1")
    assert "**Reusable knowledge**\n- idempotent handlers" in memory.body


def test_a_long_title_is_cut_on_a_word() -> None:
    title = host_memories.title_of("word " * 100)
    assert len(title) <= host_memories.MAX_TITLE and title.endswith("word…")


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("/home/ada/dev/shop", "-home-ada-dev-shop"),
        ("/tmp/my project.v2", "-tmp-my-project-v2"),
        ("/home/zoë/x", "-home-zo--x"),
        ("/tmp/😀", "-tmp---"),
    ],
)
def test_claude_slug_is_claude_codes(path: str, slug: str) -> None:
    assert host_memories.claude_slug(path) == slug


@pytest.mark.parametrize(
    ("path", "suffix"),
    # Math.abs(jCe(path)).toString(36), Claude Code 2.1.197's own function, run with node
    [("/" + "a" * 250, "feo44x"), ("/home/zoë/" + "b" * 200 + "/😀", "d5gn3c")],
)
def test_a_long_claude_slug_is_cut_and_hashed_as_claude_code_does(path: str, suffix: str) -> None:
    slug = host_memories.claude_slug(path)
    assert slug == re.sub(r"[^a-zA-Z0-9]", "-", path)[:200] + "-" + suffix


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("## How\nmake db", "**How**\nmake db"),
        ("#\n#######\n# \nkept", "kept"),
        ("########## deep ##", "**deep**"),
        ("#hashtag stays", "#hashtag stays"),
        ("a\n\n\n\nb", "a\n\nb"),
    ],
)
def test_a_body_has_no_line_note_add_would_take_for_a_heading(text: str, body: str) -> None:
    assert host_memories.note_body(text) == body


@given(st.text(alphabet=st.sampled_from("# \t\nab"), max_size=80))
def test_no_body_line_reads_as_a_heading(text: str) -> None:
    for line in host_memories.note_body(text).split("\n"):
        assert not (line.startswith("#") and line.lstrip("#")[:1] in (" ", "\t", ""))
