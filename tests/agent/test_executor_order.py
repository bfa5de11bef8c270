"""Regressions found in review: questions never overlap, whatever calls sit
between them; a failed reply lets calls that already started finish."""

from __future__ import annotations

import asyncio
import json

import pytest

from swebash_py.approvals.decision import ExecutionPlan, Judgement, PendingCall, Verdict
from tests.agent.helpers import make_agent, run
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply, ToolCall


class AskSome:
    """Asks for labels starting with 'ask'; records how many questions overlap."""

    mode = "ask"

    def __init__(self) -> None:
        self.in_flight = 0
        self.max_in_flight = 0
        self.order: list[str] = []

    def check(self, pending: PendingCall) -> Judgement:
        label = str(json.loads(pending.call.arguments).get("label", ""))
        return Judgement(Verdict("ask" if label.startswith("ask") else "allow"), ExecutionPlan())

    async def ask(self, pending: PendingCall, judged: Judgement) -> Verdict:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.order.append(pending.call.id)
        await asyncio.sleep(0.2)  # the user thinks
        self.in_flight -= 1
        return Verdict("allow", "user")


@pytest.mark.parametrize("middle", ['{"label": "fine"}', '{"label": 1, "oops": true}'],
                         ids=["allowed", "invalid"])
async def test_questions_never_overlap(fake_provider: FakeProvider, middle: str) -> None:
    calls = [ToolCall("c1", "peek", '{"label": "ask1"}'),
             ToolCall("c2", "peek", middle),
             ToolCall("c3", "peek", '{"label": "ask3"}')]
    fake_provider.queue(Reply(tool_calls=calls), Reply(text="ok"))
    approver = AskSome()
    await run(make_agent(fake_provider, "openai", Journal(), approver=approver), "go")
    assert approver.order == ["c1", "c3"]
    assert approver.max_in_flight == 1, "two approval questions were open at once"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_a_started_call_finishes_when_the_stream_breaks(fake_provider: FakeProvider,
                                                              wire: str) -> None:
    journal = Journal()
    calls = [ToolCall("c1", "poke", '{"label": "deploy", "seconds": 0.5}'),
             ToolCall("c2", "peek", '{"label": "' + "x" * 200 + '"}')]
    fake_provider.queue(Reply(tool_calls=calls, chunk_size=4, delay=0.02, cut_after=40))
    agent = make_agent(fake_provider, wire, journal)
    await run(agent, "go")
    results = {b.call_id: b for m in agent.history for b in m.tool_results()}
    assert journal.labels("start") == ["deploy"]
    assert journal.labels("end") == ["deploy"]  # it ran to the end, not killed midway
    assert results["c1"].content == "poke done: deploy" and not results["c1"].is_error
    assert set(results) == {"c1"} or "not run" in results["c2"].content
