"""The hosts' trust rules, pure: Codex's hook hash (pinned to what the real Codex 0.171.0
reports), Gemini CLI's trusted-folder rules, Claude Code's trusted folders."""

from __future__ import annotations

import json

import pytest

from mem.core.rules import hook_settings, host_trust

# `currentHash` of each entry as `codex app-server` (0.171.0) listed them (`hooks/list`) for
# a .codex/hooks.json that mem wrote with the program /opt/venv/bin/mem, and for the same
# entries edited (a statusMessage added; the timeout taken out, so Codex's 600 s counts).
CODEX_0_171 = {
    (
        "SessionStart",
        None,
    ): "sha256:367b2870ccc11bdd8fe1570e0b002d43b07217f7beb122e9140796a2a1d6d51a",
    ("UserPromptSubmit", None): (
        "sha256:3b2b44cc1ec0eb37a98d31f4f20cf3860a81935aee8196ba8c4bac359954d275"
    ),
    ("SessionStart", "statusMessage"): (
        "sha256:82c13dece2e7c29727fb44b7f3afed423de7dffd09fc0d4fbef8bda091bb5d0b"
    ),
    ("UserPromptSubmit", "no timeout"): (
        "sha256:23b3a70846a6d02466a166c21b827afd73d46c7ba6bf815453c4818840af91e3"
    ),
}


def test_mem_s_codex_entries_hash_as_codex_itself_hashes_them() -> None:
    settings = hook_settings.merged({}, "codex", "x", "/opt/venv/bin/mem")
    entries = host_trust.codex_entries(settings, "/p/.codex/hooks.json")
    # The pre-edit entry's hash is checked by the real Codex in tests/hosts (it runs only if
    # trusted by the hash computed here).
    assert [(entry.key, entry.hash) for entry in entries][:2] == [
        ("/p/.codex/hooks.json:session_start:0:0", CODEX_0_171[("SessionStart", None)]),
        ("/p/.codex/hooks.json:user_prompt_submit:0:0", CODEX_0_171[("UserPromptSubmit", None)]),
    ]
    assert [entry.key for entry in entries][2:] == ["/p/.codex/hooks.json:pre_tool_use:0:0"]
    session = settings["hooks"]["SessionStart"][0]
    handler = {**session["hooks"][0], "statusMessage": "Loading memory"}
    assert (
        host_trust.codex_hash("SessionStart", session["matcher"], handler)
        == CODEX_0_171[("SessionStart", "statusMessage")]
    )
    prompt = dict(settings["hooks"]["UserPromptSubmit"][0]["hooks"][0])
    del prompt["timeout"]
    assert (
        host_trust.codex_hash("UserPromptSubmit", "ignored: no matcher", prompt)
        == CODEX_0_171[("UserPromptSubmit", "no timeout")]
    )


def test_a_codex_key_counts_groups_and_handlers_within_each_event() -> None:
    settings = {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "lint"}]},
                {"hooks": [{"type": "command", "command": "x"}, {"command": "mem hook a"}]},
            ]
        }
    }
    (entry,) = host_trust.codex_entries(settings, "/h.json")
    assert entry.key == "/h.json:session_start:1:1"
    assert host_trust.codex_event_label("PreToolUse") == "pre_tool_use"


def test_codex_trusts_a_project_by_its_own_root_only() -> None:
    config = {"projects": {"/w": {"trust_level": "trusted"}, "/u": {"trust_level": "untrusted"}}}
    assert host_trust.codex_project_trusted(config, ["/w"])
    assert not host_trust.codex_project_trusted(config, ["/w/project"])
    assert not host_trust.codex_project_trusted(config, ["/u"])
    assert not host_trust.codex_project_trusted({"projects": "x"}, ["/w"])


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ([("/w", "TRUST_FOLDER", "/w")], True),
        ([("/w/p/sub", "TRUST_PARENT", "/w/p")], True),
        ([("/w", "TRUST_FOLDER", "/w"), ("/w/p", "DO_NOT_TRUST", "/w/p")], False),
        ([("/w", "DO_NOT_TRUST", "/w"), ("/w/p", "TRUST_FOLDER", "/w/p")], True),
        ([("/w/pr", "TRUST_FOLDER", "/w/pr")], None),  # a sibling that shares a prefix
        ([], None),
    ],
)
def test_gemini_the_longest_rule_holding_the_folder_decides(
    rules: list[tuple[str, str, str]], expected: bool | None
) -> None:
    parsed = [host_trust.GeminiRule(*rule) for rule in rules]
    assert host_trust.gemini_trusted(parsed, "/w/p") is expected


def test_gemini_refuses_a_trust_file_with_an_unknown_level() -> None:
    assert host_trust.gemini_trust_errors({"/w": "TRUST_FOLDER"}) == []
    (error,) = host_trust.gemini_trust_errors({"/w": "yes"})
    assert "'/w' has trust level 'yes'" in error


def test_gemini_settings_merge_later_layers_over_earlier() -> None:
    off = {"security": {"folderTrust": {"enabled": False}}}
    assert host_trust.gemini_setting([{}, off], "security", "folderTrust", "enabled") is False
    on_again = {"security": {"folderTrust": {"enabled": True}}}
    assert host_trust.gemini_setting([off, {}, on_again], "security", "folderTrust", "enabled")
    assert host_trust.gemini_setting([{"security": 1}], "security", "folderTrust") is None


def test_claude_code_trusts_the_work_tree_top_or_a_folder_above_the_start() -> None:
    accepted = {"hasTrustDialogAccepted": True}
    assert host_trust.claude_trusted({"projects": {"/w": accepted}}, "/w", "/w/p")
    assert host_trust.claude_trusted({"projects": {"/w/p": accepted}}, "/w/p", "/w/p")
    assert not host_trust.claude_trusted({"projects": {"/w/p/q": accepted}}, "/w/p", "/w/p")
    refused = {"/w/p": {"hasTrustDialogAccepted": False}}
    assert not host_trust.claude_trusted({"projects": refused}, "/w/p", "/w/p")
    assert host_trust.ancestors("/w/p") == ["/w/p", "/w", "/"]


def test_gemini_s_comments_are_blanked_and_strings_kept() -> None:
    text = '{\n  // a note "x"\n  "url": "http://a//b", /* why */ "q": "\\"//"\n}'
    assert json.loads(host_trust.without_comments(text)) == {"url": "http://a//b", "q": '"//'}
    assert host_trust.without_comments('{"a": 1} /* unclosed') == '{"a": 1}  '
