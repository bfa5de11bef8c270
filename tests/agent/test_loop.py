"""The turn loop against the loopback provider, in both wire formats."""

from __future__ import annotations

import asyncio

import pytest

from swebash_py.events import (
    BlockDelta,
    BlockStop,
    ErrorEvent,
    ToolProgress,
    TurnComplete,
)
from tests.agent.helpers import DenyAll, assert_paired, make_agent, run, sent_results
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.parametrize("wire", ["openai", "anthropic"])


def call(call_id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(call_id, name, arguments)


async def test_one_call_result_goes_back_matched_by_id(fake_provider: FakeProvider,
                                                       wire: str) -> None:
    journal = Journal()
    first = Reply(text="Let me look.", tool_calls=[call("c1", "peek", '{"label": "a"}')])
    fake_provider.queue(first, Reply(text="All done."))
    events = await run(make_agent(fake_provider, wire, journal), "look at a")
    assert journal.labels("end") == ["a"]
    assert len(fake_provider.requests) == 2
    assert sent_results(fake_provider.requests[1]) == [("c1", "peek done: a", False)]
    complete = events[-1]
    assert isinstance(complete, TurnComplete) and complete.stop_reason == "stop"
    assert complete.text == "Let me look.\n\nAll done."  # blocks are not glued


async def test_parallel_read_only_calls_run_together_and_answer_in_order(
        fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    calls = [call("c1", "peek", '{"label": "a", "seconds": 0.3}'),
             call("c2", "peek", '{"label": "b", "seconds": 0.1}')]
    fake_provider.queue(Reply(tool_calls=calls, interleave=True, chunk_size=3), Reply(text="ok"))
    await run(make_agent(fake_provider, wire, journal), "both")
    kinds = [kind for kind, _, _ in journal.entries]
    assert kinds[:2] == ["start", "start"], journal.entries
    assert journal.labels("end") == ["b", "a"]  # b is quicker: they really overlapped
    assert len(fake_provider.requests) == 2
    assert [r[:2] for r in sent_results(fake_provider.requests[1])] == [
        ("c1", "peek done: a"), ("c2", "peek done: b")]


async def test_writes_wait_for_earlier_calls_and_block_later_ones(
        fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    calls = [call("r1", "peek", '{"label": "read1", "seconds": 0.2}'),
             call("w1", "poke", '{"label": "write1", "seconds": 0.1}'),
             call("r2", "peek", '{"label": "read2"}'),
             call("w2", "poke", '{"label": "write2"}')]
    fake_provider.queue(Reply(tool_calls=calls), Reply(text="ok"))
    await run(make_agent(fake_provider, wire, journal), "mixed")
    order = [(kind, label) for kind, label, _ in journal.entries]
    assert order == [("start", "read1"), ("end", "read1"), ("start", "write1"),
                     ("end", "write1"), ("start", "read2"), ("end", "read2"),
                     ("start", "write2"), ("end", "write2")]
    assert [r[0] for r in sent_results(fake_provider.requests[1])] == ["r1", "w1", "r2", "w2"]


async def test_bad_calls_become_error_results_and_the_loop_goes_on(
        fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    calls = [call("c1", "peek", '{"label": '),
             call("c2", "peak", '{"label": "x"}'),
             call("c3", "boom", '{"label": "x"}'),
             call("c4", "peek", '{"label": "x", "colour": "red"}'),
             call("c5", "peek", "{}"),
             call("c6", "peek", '{"label": "fine"}')]
    fake_provider.queue(Reply(tool_calls=calls), Reply(text="recovered"))
    events = await run(make_agent(fake_provider, wire, journal), "go")
    results = sent_results(fake_provider.requests[1])
    assert [r[0] for r in results] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert [r[2] for r in results] == [True] * 5 + [False]
    texts = [r[1] for r in results]
    assert "invalid JSON" in texts[0]
    assert "unknown tool 'peak'" in texts[1] and "Did you mean 'peek'" in texts[1]
    assert "RuntimeError: kaput x" in texts[2]
    assert "colour: unknown argument" in texts[3]
    assert "label: missing (required)" in texts[4]
    assert texts[5].endswith("peek done: fine")
    assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "stop"


async def test_a_hanging_tool_times_out(fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    fake_provider.queue(Reply(tool_calls=[call("c1", "peek", '{"label": "slow", "seconds": 60}')]),
                        Reply(text="ok"))
    await run(make_agent(fake_provider, wire, journal, tool_timeout=0.5), "hang")
    (result,) = sent_results(fake_provider.requests[1])
    assert result[2] and "timed out after" in result[1]
    assert journal.labels("end") == []


async def test_denied_calls_get_a_result(fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    fake_provider.queue(Reply(tool_calls=[call("c1", "poke", '{"label": "x"}')]), Reply(text="ok"))
    await run(make_agent(fake_provider, wire, journal, approver=DenyAll()), "try")
    (result,) = sent_results(fake_provider.requests[1])
    assert result[2] and "denied" in result[1]
    assert journal.entries == []


async def test_iteration_limit_stops_with_a_valid_history(fake_provider: FakeProvider,
                                                          wire: str) -> None:
    journal = Journal()
    fake_provider.queue(*[Reply(text=f"round {i}. ",
                                tool_calls=[call(f"c{i}", "peek", f'{{"label": "{i}"}}')])
                          for i in range(3)])
    agent = make_agent(fake_provider, wire, journal, max_iterations=3)
    events = await run(agent, "loop forever")
    assert len(fake_provider.requests) == 3
    assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "max_iterations"
    assert events[-1].text == "round 0. \n\nround 1. \n\nround 2. "
    assert any(isinstance(e, ErrorEvent) and "max_iterations" in e.message for e in events)
    fake_provider.queue(Reply(text="fine"))
    await run(agent, "next")
    assert_paired(fake_provider.requests[3])
    assert [r[0] for r in sent_results(fake_provider.requests[3])] == ["c0", "c1", "c2"]


async def test_large_results_are_capped_for_the_model_but_kept_for_the_user(
        fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    fake_provider.queue(Reply(tool_calls=[call("c1", "big", '{"label": "x"}')]), Reply(text="ok"))
    events = await run(make_agent(fake_provider, wire, journal, max_output_chars=2_000), "big")
    (result,) = sent_results(fake_provider.requests[1])
    assert len(result[1]) <= 2_000 + len("Error: ")
    assert "cut from the middle" in result[1]
    assert result[1].startswith("line 0\n") and result[1].endswith("line 19999\n")
    stop = next(e for e in events if isinstance(e, BlockStop) and e.kind == "tool_result")
    assert stop.display is not None and stop.display.count("\n") == 20_000


async def test_a_read_only_call_starts_while_the_reply_still_streams(
        fake_provider: FakeProvider, wire: str) -> None:
    journal = Journal()
    calls = [call("c1", "peek", '{"label": "early"}'),
             call("c2", "peek", '{"label": "late", "padding": "' + "x" * 200 + '"}')]
    fake_provider.queue(Reply(tool_calls=calls, chunk_size=4, delay=0.005), Reply(text="ok"))
    events = await run(make_agent(fake_provider, wire, journal), "stream")
    running = next(i for i, e in enumerate(events)
                   if isinstance(e, ToolProgress) and e.call_id == "c1" and e.status == "running")
    last_fragment = max(i for i, e in enumerate(events)
                        if isinstance(e, BlockDelta) and e.kind == "tool_use")
    assert running < last_fragment


async def test_cancel_mid_stream_then_next_turn_works(fake_provider: FakeProvider,
                                                      wire: str) -> None:
    journal = Journal()
    agent = make_agent(fake_provider, wire, journal)
    fake_provider.queue(Reply(text="word " * 400, chunk_size=5, delay=0.01))
    seen = asyncio.Event()

    async def consume() -> None:
        async for event in agent.run_turn("talk"):
            if isinstance(event, BlockDelta):
                seen.set()

    task = asyncio.create_task(consume())
    await seen.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    fake_provider.wait_for_disconnect(1)
    assert [m.role for m in agent.history] == ["user", "assistant"]
    assert agent.history[1].text.startswith("word")
    fake_provider.queue(Reply(text="again"))
    events = await run(agent, "continue")
    assert isinstance(events[-1], TurnComplete) and events[-1].text == "again"


async def test_cancel_mid_tool_records_a_result_for_every_call(fake_provider: FakeProvider,
                                                               wire: str) -> None:
    journal = Journal()
    agent = make_agent(fake_provider, wire, journal)
    calls = [call("c1", "peek", '{"label": "a"}'),
             call("c2", "peek", '{"label": "slow", "seconds": 60}'),
             call("c3", "poke", '{"label": "never"}')]
    fake_provider.queue(Reply(tool_calls=calls))

    async def consume() -> None:
        async for _event in agent.run_turn("work"):
            pass

    task = asyncio.create_task(consume())
    while journal.labels("start") != ["a", "slow"]:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    results = agent.history[-1].tool_results()
    assert [(r.call_id, r.is_error) for r in results] == [
        ("c1", False), ("c2", True), ("c3", True)]
    assert results[1].content == "cancelled by the user"
    assert "never" not in journal.labels("start")
    fake_provider.queue(Reply(text="ok"))
    await run(agent, "next")
    assert_paired(fake_provider.requests[1])


async def test_unanswered_calls_left_in_history_are_repaired(fake_provider: FakeProvider,
                                                             wire: str) -> None:
    from swebash_py.engine.messages import Message, TextBlock, ToolUseBlock

    agent = make_agent(fake_provider, wire, Journal())
    agent.history.extend([Message.user("earlier"),
                          Message("assistant", [TextBlock("Running it."),
                                                ToolUseBlock("c9", "peek", '{"label": "x"}')])])
    fake_provider.queue(Reply(text="ok"))
    await run(agent, "next")
    assert_paired(fake_provider.requests[0])
    (result,) = sent_results(fake_provider.requests[0])
    assert result[0] == "c9" and result[2] and "interrupted" in result[1]
