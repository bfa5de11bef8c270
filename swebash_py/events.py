"""The event stream: what flows up from the provider and from the agent loop.

Two families live here:

* **Provider events** — what a backend yields while a model reply streams
  (text and thinking deltas, tool-call fragments keyed by index, usage, finish).
* **Turn events** — what the agent loop yields to its consumers (renderer,
  ``--json`` printer, session store, tests). Their ``type`` strings are the
  contract's JSON event names.

Every event is a frozen dataclass with a ``type`` class attribute;
``to_json()`` gives the ``--json`` line.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

BlockKind = Literal["thinking", "text", "tool_use", "tool_result"]
# Why a model reply ended, normalised at the provider boundary (provider/finish.py).
FinishReason = Literal["stop", "tool_calls", "length", "refusal", "content_filter",
                       "malformed_tool_call", "other"]
# Why a turn ended (``turn_complete.stop_reason``).
StopReason = Literal["stop", "length", "refusal", "content_filter", "max_iterations",
                     "cancelled", "error"]
# Version of the ``--json`` event schema (swebash_py/data/events.schema.json).
EVENTS_VERSION = 1


@dataclass(frozen=True)
class Event:
    """Base of all events."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


# ---------------------------------------------------------------- provider events


@dataclass(frozen=True)
class TextDelta(Event):
    """A piece of the answer text."""

    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True)
class ThinkingDelta(Event):
    """A piece of the model's visible reasoning."""

    type: ClassVar[str] = "thinking_delta"
    text: str


@dataclass(frozen=True)
class ThinkingSignature(Event):
    """Closes the current thinking block with its signature (Anthropic)."""

    type: ClassVar[str] = "thinking_signature"
    signature: str


@dataclass(frozen=True)
class RedactedThinking(Event):
    """A thinking block the provider encrypted (Anthropic ``redacted_thinking``):
    nothing to show, but it must go back unchanged with the next request."""

    type: ClassVar[str] = "redacted_thinking"
    data: str


@dataclass(frozen=True)
class ToolCallStart(Event):
    """The model began a tool call; ``index`` keys its later fragments."""

    type: ClassVar[str] = "tool_call_start"
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolCallDelta(Event):
    """A fragment of a tool call's JSON arguments."""

    type: ClassVar[str] = "tool_call_delta"
    index: int
    fragment: str


@dataclass(frozen=True)
class ToolCallReady(Event):
    """A tool call's arguments are complete (they may still be malformed JSON)."""

    type: ClassVar[str] = "tool_call_ready"
    index: int
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class UsageReport(Event):
    """Token counts the provider reported for one request."""

    type: ClassVar[str] = "usage_report"
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True)
class Finish(Event):
    """The reply ended; ``raw`` is the provider's own reason when it differs."""

    type: ClassVar[str] = "finish"
    reason: FinishReason
    raw: str = ""


ProviderEvent = (
    TextDelta | ThinkingDelta | ThinkingSignature | RedactedThinking | ToolCallStart | ToolCallDelta
    | ToolCallReady | UsageReport | Finish
)


# ---------------------------------------------------------------- turn events


@dataclass(frozen=True)
class TurnStart(Event):
    """A user turn begins."""

    type: ClassVar[str] = "turn_start"
    model: str
    session_id: str | None = None
    version: int = EVENTS_VERSION


@dataclass(frozen=True)
class BlockStart(Event):
    """A content block opens: thinking, text, a tool call, or a tool's result."""

    type: ClassVar[str] = "block_start"
    index: int
    kind: BlockKind
    call_id: str | None = None
    tool: str | None = None


@dataclass(frozen=True)
class BlockDelta(Event):
    """More text for an open block (tool_use deltas are argument fragments)."""

    type: ClassVar[str] = "block_delta"
    index: int
    kind: BlockKind
    text: str


@dataclass(frozen=True)
class BlockStop(Event):
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


@dataclass(frozen=True)
class ToolProgress(Event):
    """A running tool reports its state or a piece of its output."""

    type: ClassVar[str] = "tool_progress"
    call_id: str
    tool: str
    status: Literal["queued", "running", "output", "done"]
    output: str = ""


# Who decided about a tool call: the one definition (approvals use it too).
DecidedBy = Literal["mode", "rule", "user", "hook", "no-terminal"]


@dataclass(frozen=True)
class ApprovalEvent(Event):
    """What was decided about a tool call, and by whom."""

    type: ClassVar[str] = "approval"
    call_id: str
    tool: str
    decision: Literal["allow", "deny"]
    by: DecidedBy
    reason: str = ""


@dataclass(frozen=True)
class UsageEvent(Event):
    """Tokens and cost of one model request."""

    type: ClassVar[str] = "usage"
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None


@dataclass(frozen=True)
class Notice(Event):
    """A one-line note for the user (compaction happened, input was cut, ...)."""

    type: ClassVar[str] = "notice"
    message: str


@dataclass(frozen=True)
class ErrorEvent(Event):
    """Something failed; ``message`` is the one line the user sees."""

    type: ClassVar[str] = "error"
    message: str
    error: str = "error"


@dataclass(frozen=True)
class TurnComplete(Event):
    """The turn ended; ``stop_reason`` says why."""

    type: ClassVar[str] = "turn_complete"
    stop_reason: StopReason
    text: str = ""
    usage: dict[str, int] = field(default_factory=dict)


TurnEvent = (
    TurnStart | BlockStart | BlockDelta | BlockStop | ToolProgress | ApprovalEvent
    | UsageEvent | Notice | ErrorEvent | TurnComplete
)
