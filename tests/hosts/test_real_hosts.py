"""mem's hooks in the real hosts: one headless run of each (conftest.py), with a prompt about
pooling and a scripted edit of the project's `src/retry_policy.py`, and what reached the model.

The session brief (`Project memory (mem)`) leaves out the two old notes; the prompt's hook
brings the pooling one, the pre-edit hook the one that names the edited file, with the edit.
"""

from __future__ import annotations

from support.hosts import HostRun

BRIEF = "Project memory (mem)"


def _assert_the_brief_and_the_edits_memory_reached_the_model(run: HostRun) -> None:
    requests = run.model.model_requests()
    assert requests, "the host asked the model nothing"
    assert BRIEF in requests[0].text()
    assert run.project.edited.read_text(encoding="utf-8") == run.project.after_edit, (
        "the host did not run the scripted edit"
    )
    assert run.model.edit_sent_at is not None
    before = run.model.requests[: run.model.edit_sent_at + 1]
    after = run.model.requests[run.model.edit_sent_at + 1 :]
    assert not any(run.project.retries in request.text() for request in before)
    assert any(run.project.retries in request.text() for request in after), (
        "the pre-edit hook's memory did not reach the model after the edit"
    )


def _prompts_memory_reached_the_model(run: HostRun) -> bool:
    return run.project.pooling in run.model.model_requests()[0].text()


def test_claude_code(claude_code: HostRun) -> None:
    _assert_the_brief_and_the_edits_memory_reached_the_model(claude_code)
    assert _prompts_memory_reached_the_model(claude_code)


def test_codex(codex: HostRun) -> None:
    _assert_the_brief_and_the_edits_memory_reached_the_model(codex)
    assert _prompts_memory_reached_the_model(codex)


def test_gemini_cli(gemini_cli: HostRun) -> None:
    _assert_the_brief_and_the_edits_memory_reached_the_model(gemini_cli)
    # Gemini CLI 0.61 hands the BeforeAgent hook the prompt behind the SessionStart hook's
    # text (fixtures/host_payloads/README.md): the hook matches the user's words alone.
    assert _prompts_memory_reached_the_model(gemini_cli)
