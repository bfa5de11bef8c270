"""Compaction through the real loop: a tiny window makes the agent ask the model
for a summary first, then send a history that fits and uses that summary."""

from __future__ import annotations

import itertools

import pytest

from swebash_py.agent.fitting import SUMMARY_INSTRUCTION
from swebash_py.engine.messages import Message, TextBlock
from swebash_py.events import Notice, TurnComplete
from tests.agent.helpers import make_agent, run, small_window_fitter
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
    assert "question 0:" not in sent and "and now?" in sent
    assert fitter.last is not None and fitter.last.fits  # the request fit the window
    assert len(agent.history) < 2 * 40 + 2  # the history itself was compacted
    assert any(isinstance(e, Notice) and "compacted" in e.message.lower() for e in events)
    assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "stop"
    roles = [m.role for m in agent.history]
    assert all(a != b for a, b in itertools.pairwise(roles))
