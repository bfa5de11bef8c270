"""A stream cut in the middle of a tool call still closes that call's block:
every block_start gets its block_stop (marked an error, the arguments so far),
and the unfinished call is not part of the assistant message (it never runs)."""

from __future__ import annotations

import itertools

from swebash_py.agent.assembler import ReplyAssembler
from swebash_py.events import (
    BlockStart,
    BlockStop,
    TextDelta,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
    TurnEvent,
)


def _assembler() -> tuple[ReplyAssembler, list[TurnEvent]]:
    seen: list[TurnEvent] = []
    counter = itertools.count()
    return ReplyAssembler(seen.append, lambda: next(counter)), seen


def _opened_and_closed(seen: list[TurnEvent]) -> tuple[list[int], list[int]]:
    return ([e.index for e in seen if isinstance(e, BlockStart)],
            [e.index for e in seen if isinstance(e, BlockStop)])


def test_a_cut_tool_call_block_is_closed_as_an_error() -> None:
    asm, seen = _assembler()
    asm.feed(TextDelta("Writing it."))
    asm.feed(ToolCallStart(0, "c1", "write_file"))
    asm.feed(ToolCallDelta(0, '{"path": "x.txt", "con'))
    asm.close()  # the stream broke here
    opened, closed = _opened_and_closed(seen)
    assert opened == closed == [0, 1]
    stop = seen[-1]
    assert isinstance(stop, BlockStop)
    assert (stop.kind, stop.call_id, stop.tool, stop.is_error) == ("tool_use", "c1",
                                                                   "write_file", True)
    assert stop.content == '{"path": "x.txt", "con'
    assert [type(b).__name__ for b in asm.blocks] == ["TextBlock"]  # the cut call never runs


def test_a_finished_call_waiting_on_a_cut_one_is_closed_once() -> None:
    asm, seen = _assembler()
    asm.feed(ToolCallStart(0, "c1", "read_file"))
    asm.feed(ToolCallStart(1, "c2", "read_file"))
    asm.feed(ToolCallReady(1, "c2", "read_file", '{"path": "b"}'))  # waits for c1
    asm.close()
    asm.close()
    opened, closed = _opened_and_closed(seen)
    assert opened == closed == [0, 1]


def test_a_complete_call_is_closed_by_its_ready_event_only() -> None:
    asm, seen = _assembler()
    asm.feed(ToolCallStart(0, "c1", "read_file"))
    asm.feed(ToolCallReady(0, "c1", "read_file", '{"path": "a"}'))
    asm.close()
    opened, closed = _opened_and_closed(seen)
    assert opened == closed == [0]
    assert not any(isinstance(e, BlockStop) and e.is_error for e in seen)
