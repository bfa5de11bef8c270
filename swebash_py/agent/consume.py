"""The one event-consuming loop the front-ends share (one-shot and REPL).

Errors go to ``on_error`` (each front-end shows them its own way); every
other event goes to the sink; the ``TurnComplete`` is returned. ``route``
names every event type, so mypy flags a new one that nobody handles.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Literal, Protocol, assert_never

from swebash_py.events import (
    ApprovalEvent,
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorEvent,
    Notice,
    PreviewEvent,
    ToolProgress,
    TurnComplete,
    TurnEvent,
    TurnStart,
    UsageEvent,
)


class EventSink(Protocol):
    """What a consumer of turn events offers (the renderers)."""

    def handle(self, event: TurnEvent) -> None: ...


def route(event: TurnEvent) -> Literal["error", "complete", "show"]:
    """Where an event goes: the error line, the end of the turn, or the sink."""
    match event:
        case ErrorEvent():
            return "error"
        case TurnComplete():
            return "complete"
        case (TurnStart() | BlockStart() | BlockDelta() | BlockStop() | ToolProgress()
              | ApprovalEvent() | PreviewEvent() | UsageEvent() | Notice()):
            return "show"
        case _:
            assert_never(event)


async def consume(events: AsyncIterator[TurnEvent], sink: EventSink,
                  on_error: Callable[[ErrorEvent], None]) -> TurnComplete | None:
    """Feed one turn's events to ``sink``; returns its ``TurnComplete`` (if any)."""
    done: TurnComplete | None = None
    async for event in events:
        match event:
            case ErrorEvent():
                on_error(event)
                continue
            case TurnComplete():
                done = event
        sink.handle(event)
    return done
