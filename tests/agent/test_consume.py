"""The shared event-consuming loop: errors aside, everything reaches the sink."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import get_args

import pytest

from swebash_py.agent.consume import consume, route
from swebash_py.events import ErrorEvent, Notice, TurnComplete, TurnEvent, TurnStart


class _Sink:
    def __init__(self) -> None:
        self.seen: list[TurnEvent] = []

    def handle(self, event: TurnEvent) -> None:
        self.seen.append(event)


async def _events(*events: TurnEvent) -> AsyncIterator[TurnEvent]:
    for event in events:
        yield event


async def test_errors_go_aside_and_the_turn_complete_is_returned() -> None:
    sink, errors = _Sink(), list[ErrorEvent]()
    complete = TurnComplete("stop", "hi")
    stream = _events(TurnStart("m"), Notice("n"), ErrorEvent("boom"), complete)
    assert await consume(stream, sink, errors.append) is complete
    assert [type(e) for e in sink.seen] == [TurnStart, Notice, TurnComplete]
    assert [e.message for e in errors] == ["boom"]


async def test_a_turn_without_its_complete_returns_none() -> None:
    assert await consume(_events(TurnStart("m")), _Sink(), lambda _e: None) is None


def test_route_names_every_event_type() -> None:
    for cls in get_args(TurnEvent):
        required = len(cls.__struct_fields__) - len(cls.__struct_defaults__)
        assert route(cls(*[None] * required)) in ("error", "complete", "show")


def test_route_refuses_what_is_not_a_turn_event() -> None:
    with pytest.raises(AssertionError):
        route(object())  # type: ignore[arg-type]
