"""Fitting long synthetic sessions into tiny windows."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from swebash_py.engine.context import (
    SUMMARY_PREFIX,
    ContextManager,
    FitResult,
    input_budget,
)
from swebash_py.engine.messages import Message, ToolResultBlock, ToolUseBlock
from tests.engine.synthetic_history import assert_valid, make_turn

SYSTEM = "You are a shell assistant. " * 20
TOOLS = 300
WINDOW = 6000
REPLY = 1000


class Recorder:
    """A summarize callable that records its inputs and returns a short summary."""

    def __init__(self) -> None:
        self.calls: list[list[Message]] = []

    async def __call__(self, msgs: list[Message]) -> str:
        self.calls.append(msgs)
        return f"SUMMARY#{len(self.calls)} of {len(msgs)} messages"


async def run_session(cm: ContextManager, turns: int, check: Callable[[FitResult], None],
                      seed: int = 0, **kwargs: int) -> list[FitResult]:
    """Drive a conversation the way the agent loop does: append, fit, keep the result."""
    rng = random.Random(seed)
    conv: list[Message] = []
    results = []
    for n in range(turns):
        turn = make_turn(rng, n, **kwargs)
        conv.append(turn[0])
        for i in range(1, len(turn) + 1, 2):  # one request after each user message
            result = await cm.fit(SYSTEM, conv, TOOLS, WINDOW, REPLY)
            check(result)
            results.append(result)
            conv = [*result.messages, *turn[i:i + 2]]
    return results


def check_fits(result: FitResult) -> None:
    assert result.fits, (result.tokens, result.budget)
    assert_valid(result.messages)


async def test_small_history_is_returned_unchanged(session: Callable[..., list[Message]]) -> None:
    summarize = Recorder()
    msgs = session(2)
    result = await ContextManager(summarize).fit(SYSTEM, msgs, TOOLS, 100_000, 4000)
    assert result.messages is msgs
    assert not result.compacted and result.note is None
    assert summarize.calls == []
    assert 0 < result.tokens < result.budget


async def test_long_session_always_fits_and_uses_the_summary() -> None:
    summarize = Recorder()
    cm = ContextManager(summarize)
    results = await run_session(cm, 40, check_fits)
    compactions = [r for r in results if r.compacted]
    assert summarize.calls, "the model was never asked to summarise"
    assert compactions and all(r.note and "Context compacted" in r.note for r in compactions)
    # The summary returned by the model is what the kept history starts with.
    last = compactions[-1].messages[0].blocks[0]
    assert last.text.startswith(SUMMARY_PREFIX)  # type: ignore[union-attr]
    assert f"SUMMARY#{len(summarize.calls)}" in last.text  # type: ignore[union-attr]
    # Compaction leaves room: it does not run again on the very next request.
    idx = results.index(compactions[0])
    assert not results[idx + 1].compacted
    # And with these sizes it happens every few turns, not on every request.
    assert len(compactions) < len(results) / 4


async def test_every_compaction_request_fits() -> None:
    summarize = Recorder()
    cm = ContextManager(summarize)
    await run_session(cm, 30, check_fits, result_chars=1200)
    budget = input_budget(WINDOW, REPLY)
    assert summarize.calls
    for call in summarize.calls:
        assert_valid(call)
        size = cm.counter.scaled(cm.counter.messages(call))
        assert size <= cm.summary_input_ratio * budget, (size, budget)


async def test_oversized_older_part_is_summarised_in_chunks(
        session: Callable[..., list[Message]]) -> None:
    summarize = Recorder()
    cm = ContextManager(summarize)
    msgs = session(12, result_chars=800)  # e.g. resuming a long session on a small model
    msgs.append(Message.user("and now?"))
    result = await cm.fit(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    check_fits(result)
    assert 1 < len(summarize.calls) <= cm.max_summary_chunks
    # Rolling summary: each later chunk starts with the summary so far.
    for n, call in enumerate(summarize.calls[1:], start=1):
        assert f"SUMMARY#{n} " in call[0].text
    assert f"SUMMARY#{len(summarize.calls)} " in result.messages[0].text
    assert result.messages[-1].text == "and now?"


async def test_huge_tool_result_in_current_turn_is_shortened() -> None:
    cm = ContextManager(Recorder())
    use = ToolUseBlock("c1", "run_command", '{"command": "cat big.log"}')
    big = "line of log output number 12345\n" * 3000
    msgs = [Message.user("show the log"), Message("assistant", [use]),
            Message("user", [ToolResultBlock("c1", "run_command", "HEAD\n" + big + "TAIL")])]
    result = await cm.fit(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    check_fits(result)
    assert result.shortened_results == 1 and "shortened 1 tool result" in (result.note or "")
    content = result.messages[-1].tool_results()[0].content
    assert content.startswith("HEAD") and content.endswith("TAIL") and "omitted" in content
    assert msgs[-1].tool_results()[0].content.endswith(big + "TAIL"), "input was modified"


async def test_one_long_turn_is_cut_between_tool_rounds() -> None:
    summarize = Recorder()
    cm = ContextManager(summarize)
    msgs = make_turn(random.Random(1), 0, rounds=30, result_chars=500)[:-1]
    result = await cm.fit(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    check_fits(result)
    assert result.compacted
    first = result.messages[0].text
    assert "[The request being worked on]" in first and "request 0:" in first
    assert result.messages[-1].tool_results(), "the latest results are kept verbatim"


async def test_failed_summary_falls_back_to_dropping_turns(
        session: Callable[..., list[Message]]) -> None:
    async def broken(msgs: list[Message]) -> str:
        raise RuntimeError("provider down")

    msgs = [*session(15), Message.user("next")]
    result = await ContextManager(broken).fit(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    check_fits(result)
    assert not result.compacted and result.dropped_turns > 0
    assert "dropped" in (result.note or "")


async def test_overflow_recovery_halves_and_is_deterministic(
        session: Callable[..., list[Message]]) -> None:
    msgs = [*session(3), Message.user("next")]
    first = ContextManager(Recorder()).recover_from_overflow(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    second = ContextManager(Recorder()).recover_from_overflow(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    assert_valid(first.messages)
    assert first.messages == second.messages and first.note == second.note
    assert first.tokens <= 0.5 * first.budget
    assert first.dropped_turns > 0 and first.messages[-1].text == "next"
    assert first.note and first.note.startswith("Context window exceeded")


async def test_overflow_recovery_raises_the_estimate(
        session: Callable[..., list[Message]]) -> None:
    cm = ContextManager(Recorder())
    msgs = session(3)
    before = cm.counter.factor
    cm.recover_from_overflow(SYSTEM, msgs, TOOLS, 50_000, REPLY)
    assert cm.counter.factor > before


async def test_forced_compact_keeps_last_turn_and_stays_appendable(
        session: Callable[..., list[Message]]) -> None:
    summarize = Recorder()
    cm = ContextManager(summarize)
    msgs = session(4, result_chars=200)
    result = await cm.compact(SYSTEM, msgs, TOOLS, 100_000, REPLY)
    assert result.compacted and len(summarize.calls) == 1
    assert result.messages[0].text.startswith(SUMMARY_PREFIX)
    assert "request 3:" in result.messages[0].text  # the last turn, verbatim
    assert_valid(result.messages)
    assert result.messages[-1].role == "assistant"


async def test_forced_compact_of_one_huge_turn_summarises_everything() -> None:
    summarize = Recorder()
    cm = ContextManager(summarize)
    msgs = make_turn(random.Random(2), 0, rounds=20, result_chars=2000)
    result = await cm.compact(SYSTEM, msgs, TOOLS, WINDOW * 4, REPLY)
    assert result.compacted
    assert [m.role for m in result.messages] == ["user", "assistant"]
    follow_up = [*result.messages, Message.user("thanks")]
    assert_valid(follow_up)
    # A later fit recognises the summary and keeps it in front.
    again = await cm.fit(SYSTEM, follow_up, TOOLS, WINDOW, REPLY)
    assert again.messages[0].text.startswith(SUMMARY_PREFIX)


async def test_without_summarizer_oldest_turns_are_dropped(
        session: Callable[..., list[Message]]) -> None:
    msgs = [*session(20), Message.user("latest")]
    result = await ContextManager(None).fit(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    check_fits(result)
    assert result.dropped_turns > 0 and not result.compacted
    assert result.messages[0].text.startswith("request ")


@pytest.mark.parametrize("seed", range(5))
async def test_random_sessions_fit(seed: int) -> None:
    rng = random.Random(seed)
    cm = ContextManager(Recorder())
    await run_session(cm, 12, check_fits, seed=seed, rounds=rng.randint(0, 4),
                      calls=rng.randint(1, 3), result_chars=rng.choice([100, 800, 3000]))


async def test_summary_requests_are_capped(session: Callable[..., list[Message]]) -> None:
    summarize = Recorder()
    cm = ContextManager(summarize, max_summary_chunks=2)
    msgs = [*session(30, result_chars=800), Message.user("and now?")]
    result = await cm.fit(SYSTEM, msgs, TOOLS, WINDOW, REPLY)
    check_fits(result)
    assert len(summarize.calls) == 2
    assert result.note and "left out the oldest" in result.note
    assert result.summarized_messages < len(msgs)
