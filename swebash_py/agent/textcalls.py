"""Tool calls a model wrote as text, made into real calls.

Many local servers do not parse the calls of models trained on the Hermes/Qwen
format: the reply's text then holds ``<tool_call>{"name": …, "arguments": …}
</tool_call>`` (or a fenced ```json block holding the same object) and the
server reports no call at all, so the user sees the call printed, not run.
This filter sits between the provider's events and the assembler: it holds
back text that may be such a call, and turns one that parses, names a tool we
offered and has object arguments into ``ToolCallStart`` + ``ToolCallReady``
(so approvals, the audit and the result going back work as for any call).
A fenced block is also how models show an example, so one counts as a call
only when nothing but whitespace (or more calls) follows it to the end of the
reply: it is held until then, and prose after it lets it go on as text.
Anything else goes on as the text it was. Once the server sends a real call,
the reply is left alone. Off with ``[tools] text_tool_calls = false``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Collection
from typing import Any

from swebash_py.events import (
    Finish,
    ProviderEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
)

OPEN, CLOSE = "<tool_call>", "</tool_call>"
FENCE_OPEN, FENCE_CLOSE = "```json\n", "\n```"
_FIRST_INDEX = 10_000  # far from the server's own call indexes


def parse_call(text: str, tools: Collection[str]) -> tuple[str, str] | None:
    """``(name, arguments JSON)`` when ``text`` is one call of a tool in ``tools``."""
    try:
        value = json.loads(text.strip())
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("name") not in tools:
        return None
    arguments: Any = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):  # some models send the arguments as a JSON string
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict):
        return None
    return str(value["name"]), json.dumps(arguments, ensure_ascii=False)


class TextCalls:
    """The filter's state for one reply."""

    def __init__(self, tools: Collection[str]) -> None:
        self.tools = tools
        self.made = 0
        self.native = False  # the server sent a call of its own: leave the text alone
        self._held = ""  # text not passed on yet: possibly (the start of) a call
        self._closer: str | None = None  # inside a call: the marker that ends it
        # calls after a fenced one wait for the end of the reply: their text as
        # written (to pass on if prose follows) and what they parsed to
        self._pending_text = ""
        self._pending: list[tuple[str, str]] = []

    def feed(self, event: ProviderEvent) -> list[ProviderEvent]:
        if isinstance(event, ToolCallStart | ToolCallDelta | ToolCallReady) and not self.native:
            self.native = True
            return [*self._flush_as_text(), event]
        if isinstance(event, TextDelta) and not self.native:
            self._held += event.text
            return self._scan()
        if isinstance(event, Finish):
            return [*self.end(), event]
        return [event]

    def end(self) -> list[ProviderEvent]:
        """The end of the reply: the calls held for it are made; a call missing
        only its closing tag still counts."""
        opener = OPEN if self._closer == CLOSE else FENCE_OPEN
        if self._closer is not None and (parsed := parse_call(self._held[len(opener):],
                                                              self.tools)):
            self._pending.append(parsed)
            self._held, self._closer = "", None
        if self._pending and not self._held.strip():
            calls, self._pending, self._pending_text, self._held = self._pending, [], "", ""
            return [event for name, arguments in calls for event in self._events(name, arguments)]
        return self._flush_as_text()

    def _scan(self) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        while True:
            if self._closer is None:
                start, marker = self._opening()
                if start < 0:
                    keep = _partial_marker(self._held)
                    out += self._pass_on(self._held[:len(self._held) - keep])
                    self._held = self._held[len(self._held) - keep:]
                    return out
                out += self._pass_on(self._held[:start])
                self._held = self._held[start:]
                self._closer = CLOSE if marker == OPEN else FENCE_CLOSE
            end = self._held.find(self._closer, 1)
            if end < 0:
                return out
            opener = OPEN if self._closer == CLOSE else FENCE_OPEN
            whole = self._held[:end + len(self._closer)]
            fenced = self._closer == FENCE_CLOSE
            self._held, self._closer = self._held[len(whole):], None
            parsed = parse_call(whole[len(opener):end], self.tools)
            if parsed is None:
                out += self._release() + _text(whole)
            elif fenced or self._pending:  # made at the end, unless prose follows
                self._pending_text += whole
                self._pending.append(parsed)
            else:
                out += self._events(*parsed)

    def _pass_on(self, text: str) -> list[ProviderEvent]:
        """Text outside any block. With calls held, whitespace stays held with
        them; anything else lets them go on as text (an example, then prose)."""
        if self._pending and not text.strip():
            self._pending_text += text
            return []
        return self._release() + _text(text)

    def _release(self) -> list[ProviderEvent]:
        """The held calls, as the text they were written as."""
        text, self._pending_text, self._pending = self._pending_text, "", []
        return _text(text)

    def _opening(self) -> tuple[int, str]:
        found = [(i, m) for m in (OPEN, FENCE_OPEN) if (i := self._held.find(m)) >= 0]
        return min(found) if found else (-1, "")

    def _events(self, name: str, arguments: str) -> list[ProviderEvent]:
        index = _FIRST_INDEX + self.made
        self.made += 1
        call_id = f"text_call_{self.made}"
        return [ToolCallStart(index, call_id, name), ToolCallReady(index, call_id, name, arguments)]

    def _flush_as_text(self) -> list[ProviderEvent]:
        held, self._held, self._closer = self._held, "", None
        return self._release() + _text(held)


def _text(text: str) -> list[ProviderEvent]:
    return [TextDelta(text)] if text else []


def _partial_marker(text: str) -> int:
    """How many characters at the end of ``text`` may begin an opening marker."""
    for size in range(min(len(text), max(len(OPEN), len(FENCE_OPEN)) - 1), 0, -1):
        tail = text[-size:]
        if OPEN.startswith(tail) or FENCE_OPEN.startswith(tail):
            return size
    return 0


async def with_text_calls(events: AsyncIterator[ProviderEvent],
                          tools: Collection[str]) -> AsyncIterator[ProviderEvent]:
    """``events`` with the calls written as text made into calls."""
    calls = TextCalls(tools)
    ended = False
    async for event in events:
        ended = ended or isinstance(event, Finish)
        for out in calls.feed(event):
            yield out
    if not ended:
        for out in calls.end():
            yield out
