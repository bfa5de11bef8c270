"""Builds the assistant message from provider events, emitting turn events.

Provider events are low level (deltas keyed by tool-call index); this turns
them into numbered content blocks (thinking, text, tool_use) and the
provider-neutral ``Message`` that goes into the history.
"""

from __future__ import annotations

from collections.abc import Callable

from swebash_py.engine.messages import Block, TextBlock, ThinkingBlock, ToolUseBlock, json_object
from swebash_py.events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    Finish,
    ProviderEvent,
    RedactedThinking,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
    TurnEvent,
    UsageReport,
)

Emit = Callable[[TurnEvent], None]


class ReplyAssembler:
    """Feeds on one streamed reply; ``blocks`` is the assistant message so far."""

    def __init__(self, emit: Emit, next_index: Callable[[], int],
                 on_block: Callable[[Block], None] = lambda _block: None) -> None:
        self._emit = emit
        self._on_block = on_block
        self._next_index = next_index
        self.blocks: list[Block] = []
        self.finish: Finish | None = None
        self.usage: UsageReport | None = None
        self._open_kind: str | None = None
        self._open_index = -1
        self._open_text: list[str] = []
        self._calls: dict[int, tuple[int, str, str]] = {}  # index -> (block, id, name)
        self._order: list[int] = []  # call indexes in the order they started
        self._ready: dict[int, ToolCallReady] = {}
        self._released = 0
        self._partial: dict[int, list[str]] = {}  # call index -> argument fragments so far

    @property
    def text(self) -> str:
        return "\n\n".join(b.text for b in self.blocks if isinstance(b, TextBlock) and b.text)

    def feed(self, event: ProviderEvent) -> list[ToolUseBlock]:
        """Handle one event; returns the tool calls that are now ready to run.

        Calls are released in emission order: one whose arguments completed
        early waits for the calls the model started before it.
        """
        if isinstance(event, TextDelta):
            self._append("text", event.text)
        elif isinstance(event, ThinkingDelta):
            self._append("thinking", event.text)
        elif isinstance(event, ThinkingSignature):
            self._close(signature=event.signature)
        elif isinstance(event, RedactedThinking):
            self._close()
            block = ThinkingBlock("", redacted_data=event.data)
            self.blocks.append(block)
            self._on_block(block)
        elif isinstance(event, ToolCallStart):
            self._start_call(event)
        elif isinstance(event, ToolCallDelta):
            self._call_delta(event)
        elif isinstance(event, ToolCallReady):
            return self._call_ready(event)
        elif isinstance(event, UsageReport):
            self.usage = event
        elif isinstance(event, Finish):
            self._close()
            self.finish = event
        return []

    def close(self) -> None:
        """Close whatever block is still open (a cut or cancelled stream): text or
        thinking as it stands; a call that will not run as an error with the
        arguments received so far (every block_start gets its block_stop)."""
        self._close()
        for index in self._order[self._released:]:
            block_index, call_id, name = self._calls[index]
            ready = self._ready.get(index)
            arguments = ready.arguments if ready else "".join(self._partial.get(index, []))
            self._emit(BlockStop(block_index, "tool_use", arguments, call_id=call_id,
                                 tool=name, is_error=True))
        self._released = len(self._order)

    # -- text and thinking ------------------------------------------------

    def _append(self, kind: str, text: str) -> None:
        if not text:
            return
        if self._open_kind != kind:
            self._close()
            self._open_kind, self._open_index = kind, self._next_index()
            self._open_text = []
            self._emit(BlockStart(self._open_index, kind))  # type: ignore[arg-type]
        self._open_text.append(text)
        self._emit(BlockDelta(self._open_index, kind, text))  # type: ignore[arg-type]

    def _close(self, signature: str | None = None) -> None:
        kind = self._open_kind
        if kind is None:
            if signature and self.blocks and isinstance(self.blocks[-1], ThinkingBlock):
                self.blocks[-1].signature = signature
            return
        content = "".join(self._open_text)
        block: Block = (ThinkingBlock(content, signature) if kind == "thinking"
                        else TextBlock(content))
        self.blocks.append(block)
        self._on_block(block)
        self._emit(BlockStop(self._open_index, kind, content))  # type: ignore[arg-type]
        self._open_kind, self._open_text = None, []

    # -- tool calls ---------------------------------------------------------

    def _start_call(self, event: ToolCallStart) -> None:
        self._close()
        block_index = self._next_index()
        self._calls[event.index] = (block_index, event.id, event.name)
        self._order.append(event.index)
        self._emit(BlockStart(block_index, "tool_use", call_id=event.id, tool=event.name))

    def _call_delta(self, event: ToolCallDelta) -> None:
        if event.fragment and event.index in self._calls:
            block_index = self._calls[event.index][0]
            self._partial.setdefault(event.index, []).append(event.fragment)
            self._emit(BlockDelta(block_index, "tool_use", event.fragment))

    def _call_ready(self, event: ToolCallReady) -> list[ToolUseBlock]:
        if event.index in self._ready:
            return []
        if event.index not in self._calls:
            self._start_call(ToolCallStart(event.index, event.id, event.name))
        self._ready[event.index] = event
        released = []
        while self._released < len(self._order) and self._order[self._released] in self._ready:
            released.append(self._release(self._ready[self._order[self._released]]))
            self._released += 1
        return released

    def _release(self, event: ToolCallReady) -> ToolUseBlock:
        block_index, call_id, name = self._calls[event.index]
        call = ToolUseBlock(call_id or event.id, name or event.name, event.arguments)
        self.blocks.append(call)
        self._on_block(call)
        self._emit(BlockStop(block_index, "tool_use", event.arguments, call_id=call.id,
                             tool=call.name, input=json_object(event.arguments or "{}")))
        return call
