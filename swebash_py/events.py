"""The event stream: what flows up from the provider and from the agent loop.

Two families live here:

* **Provider events** — what a backend yields while a model reply streams
  (text and thinking deltas, tool-call fragments keyed by index, usage, finish).
* **Turn events** — what the agent loop yields to its consumers (renderer,
  ``--json`` printer, session store, tests). Their ``type`` strings are the
  contract's JSON event names.

Every event is a frozen ``msgspec.Struct`` (built in C at import: a dataclass
exec()s its generated methods, ~20 times the cost) with a ``type`` class
attribute; ``to_json()`` gives the ``--json`` line, exactly as the frozen
dataclasses these were gave it through ``dataclasses.asdict``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

import msgspec

BlockKind = Literal["thinking", "text", "tool_use", "tool_result"]
# Why a model reply ended, normalised at the provider boundary (provider/finish.py).
FinishReason = Literal["stop", "tool_calls", "length", "refusal", "content_filter",
                       "malformed_tool_call", "other"]
# Why a turn ended (``turn_complete.stop_reason``).
StopReason = Literal["stop", "length", "refusal", "content_filter", "max_iterations",
                     "cancelled", "error"]
# Version of the ``--json`` event schema (swebash_py/data/events.schema.json).
EVENTS_VERSION = 1


class Event(msgspec.Struct, frozen=True):
    """Base of all events (subclasses inherit ``frozen``; they repeat it for mypy)."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in self.__struct_fields__:
            value = getattr(self, name)
            out[name] = value if type(value) in _ATOMIC else _plain(value)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


_ATOMIC = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """``value`` as ``dataclasses.asdict`` (Python 3.11) turned it: events (and any
    dataclass) into dicts of their fields, lists, tuples and dicts rebuilt with the
    same types, everything else deep-copied."""
    if type(value) in _ATOMIC:
        return value
    if isinstance(value, Event):
        return {name: _plain(getattr(value, name)) for name in value.__struct_fields__}
    if hasattr(type(value), "__dataclass_fields__"):
        import dataclasses  # only for a dataclass nested in a payload
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*[_plain(item) for item in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    if isinstance(value, dict):
        return type(value)((_plain(key), _plain(item)) for key, item in value.items())
    import copy  # rare: a payload value of another type
    return copy.deepcopy(value)


# ---------------------------------------------------------------- provider events


class TextDelta(Event, frozen=True):
    """A piece of the answer text."""

    type: ClassVar[str] = "text_delta"
    text: str


class ThinkingDelta(Event, frozen=True):
    """A piece of the model's visible reasoning."""

    type: ClassVar[str] = "thinking_delta"
    text: str


class ThinkingSignature(Event, frozen=True):
    """Closes the current thinking block with its signature (Anthropic)."""

    type: ClassVar[str] = "thinking_signature"
    signature: str


class RedactedThinking(Event, frozen=True):
    """A thinking block the provider encrypted (Anthropic ``redacted_thinking``):
    nothing to show, but it must go back unchanged with the next request."""

    type: ClassVar[str] = "redacted_thinking"
    data: str


class ToolCallStart(Event, frozen=True):
    """The model began a tool call; ``index`` keys its later fragments."""

    type: ClassVar[str] = "tool_call_start"
    index: int
    id: str
    name: str


class ToolCallDelta(Event, frozen=True):
    """A fragment of a tool call's JSON arguments."""

    type: ClassVar[str] = "tool_call_delta"
    index: int
    fragment: str


class ToolCallReady(Event, frozen=True):
    """A tool call's arguments are complete (they may still be malformed JSON)."""

    type: ClassVar[str] = "tool_call_ready"
    index: int
    id: str
    name: str
    arguments: str


class UsageReport(Event, frozen=True):
    """Token counts the provider reported for one request."""

    type: ClassVar[str] = "usage_report"
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class Finish(Event, frozen=True):
    """The reply ended; ``raw`` is the provider's own reason when it differs."""

    type: ClassVar[str] = "finish"
    reason: FinishReason
    raw: str = ""


ProviderEvent = (
    TextDelta | ThinkingDelta | ThinkingSignature | RedactedThinking | ToolCallStart | ToolCallDelta
    | ToolCallReady | UsageReport | Finish
)


# ---------------------------------------------------------------- turn events


class TurnStart(Event, frozen=True):
    """A user turn begins."""

    type: ClassVar[str] = "turn_start"
    model: str
    session_id: str | None = None
    version: int = EVENTS_VERSION


class BlockStart(Event, frozen=True):
    """A content block opens: thinking, text, a tool call, or a tool's result."""

    type: ClassVar[str] = "block_start"
    index: int
    kind: BlockKind
    call_id: str | None = None
    tool: str | None = None


class BlockDelta(Event, frozen=True):
    """More text for an open block (tool_use deltas are argument fragments)."""

    type: ClassVar[str] = "block_delta"
    index: int
    kind: BlockKind
    text: str


class BlockStop(Event, frozen=True):
    """A block is complete; ``content`` is its whole text (or result)."""

    type: ClassVar[str] = "block_stop"
    index: int
    kind: BlockKind
    content: str = ""
    call_id: str | None = None
    tool: str | None = None
    input: dict[str, Any] | None = None
    is_error: bool = False
    display: str | None = None


class ToolProgress(Event, frozen=True):
    """A running tool reports its state or a piece of its output."""

    type: ClassVar[str] = "tool_progress"
    call_id: str
    tool: str
    status: Literal["queued", "running", "output", "done"]
    output: str = ""


# Who decided about a tool call: the one definition (approvals use it too).
DecidedBy = Literal["mode", "rule", "user", "hook", "no-terminal"]


class ApprovalEvent(Event, frozen=True):
    """What was decided about a tool call, and by whom."""

    type: ClassVar[str] = "approval"
    call_id: str
    tool: str
    decision: Literal["allow", "deny"]
    by: DecidedBy
    reason: str = ""


class PreviewEvent(Event, frozen=True):
    """A command's preview: what it would change and what became of it."""

    type: ClassVar[str] = "preview"
    call_id: str
    tool: str
    outcome: Literal["no-changes", "applied", "discarded", "over-bound"]
    changes: list[dict[str, Any]] = msgspec.field(default_factory=list)
    summary: str = ""


class UsageEvent(Event, frozen=True):
    """Tokens and cost of one model request."""

    type: ClassVar[str] = "usage"
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None


class Notice(Event, frozen=True):
    """A one-line note for the user (compaction happened, input was cut, ...)."""

    type: ClassVar[str] = "notice"
    message: str


class ErrorEvent(Event, frozen=True):
    """Something failed; ``message`` is the one line the user sees."""

    type: ClassVar[str] = "error"
    message: str
    error: str = "error"


class TurnComplete(Event, frozen=True):
    """The turn ended; ``stop_reason`` says why."""

    type: ClassVar[str] = "turn_complete"
    stop_reason: StopReason
    text: str = ""
    usage: dict[str, int] = msgspec.field(default_factory=dict)


TurnEvent = (
    TurnStart | BlockStart | BlockDelta | BlockStop | ToolProgress | ApprovalEvent
    | PreviewEvent | UsageEvent | Notice | ErrorEvent | TurnComplete
)
