"""Compaction through the real loop: a tiny window makes the agent ask the model
for a summary first, then send a history that fits and uses that summary."""

from __future__ import annotations

import itertools

import pytest

from swebash_py.agent.fitting import SUMMARY_INSTRUCTION
from swebash_py.engine.messages import Message, TextBlock
from swebash_py.events import Notice, TurnComplete
from tests.agent.helpers import builtin_edits, make_agent, run, small_window_fitter
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply


def long_history(turns: int) -> list[Message]:
    history = []
    for i in range(turns):
        history.append(Message.user(f"question {i}: " + "details " * 60))
        history.append(Message("assistant", [TextBlock(f"answer {i}: " + "words " * 60)]))
    return history


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_long_session_is_summarised_and_the_summary_is_used(
        fake_provider: FakeProvider, wire: str) -> None:
    fitter = small_window_fitter(fake_provider, wire)
    agent = make_agent(fake_provider, wire, Journal(), fitter=fitter)
    agent.history.extend(long_history(40))
    # Every request gets this reply: the summariser may use several (it chunks
    # what does not fit one request); the real request comes last.
    fake_provider.repeat_last = True
    fake_provider.queue(Reply(text="SUMMARY: the user asked 40 questions about details."))
    events = await run(agent, "and now?")
    *summary_requests, real_request = fake_provider.requests
    assert summary_requests
    assert all(SUMMARY_INSTRUCTION in str(r.body) for r in summary_requests)
    sent = str(real_request.body)
    assert SUMMARY_INSTRUCTION not in sent
    assert "SUMMARY: the user asked 40 questions" in sent
    # the old turns are gone; the user's first words survive only quoted in the state
    # (compaction keeps a structured state since #31: the user's words verbatim)
    assert "answer 0:" not in sent and "'question 0:" not in sent and "and now?" in sent
    assert '- "question 0:' in sent
    assert fitter.last is not None and fitter.last.fits  # the request fit the window
    assert len(agent.history) < 2 * 40 + 2  # the history itself was compacted
    assert any(isinstance(e, Notice) and "compacted" in e.message.lower() for e in events)
    assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "stop"
    roles = [m.role for m in agent.history]
    assert all(a != b for a, b in itertools.pairwise(roles))


def _state_history() -> list[Message]:
    from swebash_py.engine.messages import ToolResultBlock, ToolUseBlock

    def call(call_id: str, name: str, args: str, result: str, error: bool) -> list[Message]:
        return [Message("assistant", [ToolUseBlock(call_id, name, args)]),
                Message("user", [ToolResultBlock(call_id, name, result, is_error=error)])]

    history = [Message.user("Fix the build. Never touch deploy/prod.cfg; indent with tabs.")]
    history += call("c1", "run_command", '{"command": "rm -rf build"}',
                    "denied by the user", True)
    history += call("c2", "edit_file", '{"path": "src/app.c", "old_text": "a", '
                    '"new_text": "b"}', "Edited src/app.c (3 lines; +1 -1)", False)
    history += call("c3", "read_file", '{"path": "missing.h"}', "missing.h: no such file", True)
    history += call("c4", "write_file", '{"path": "out/x.c", "content": "y"}',
                    "out/x.c is outside the workspace", True)
    history.append(Message("assistant", [TextBlock("Done with the first part.")]))
    return history + long_history(40)


async def test_compaction_keeps_a_structured_state(fake_provider: FakeProvider) -> None:
    """The user's words verbatim, the refusal and the changed file survive, recorded by us;
    the twins: a failed read is no refusal, a failed write changed no file."""
    fitter = small_window_fitter(fake_provider, "openai")
    agent = make_agent(fake_provider, "openai", Journal(), fitter=fitter)
    agent.history.extend(_state_history())
    fake_provider.repeat_last = True
    fake_provider.queue(Reply(text="Goal: fix the build. Next: run make."))
    await run(agent, "go on")
    sent = str(fake_provider.requests[-1].body)
    assert "Never touch deploy/prod.cfg; indent with tabs." in sent
    assert "run_command rm -rf build: denied by the user" in sent
    assert "Files changed:" in sent and "- src/app.c" in sent
    assert "Goal: fix the build." in sent
    assert "missing.h" not in sent.split("Goal:")[0]  # not a refusal
    assert "out/x.c" not in sent  # not changed


def test_a_later_compaction_carries_the_recorded_parts() -> None:
    from swebash_py.engine.compaction_state import FILES, WORDS, recorded, state_text

    first = state_text("Goal: g.", recorded(_state_history()[:5], changes_files=builtin_edits))
    again = recorded([Message.user("and keep the old API")], first, changes_files=builtin_edits)
    assert '"Fix the build. Never touch deploy/prod.cfg; indent with tabs."' in again[WORDS]
    assert again[WORDS][-1] == '"and keep the old API"' and again[FILES] == ["src/app.c"]
