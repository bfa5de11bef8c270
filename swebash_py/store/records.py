"""Plain records read from the store, and the block <-> row mapping.

The records are frozen ``msgspec.Struct`` classes (built in C at import, where a
dataclass exec()s its generated methods)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from swebash_py.engine.messages import (
    Block,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from swebash_py.engine.secrets import redact

TITLE_CHARS = 60


class SessionInfo(msgspec.Struct, frozen=True):
    id: str
    title: str | None
    created: float  # unix seconds
    updated: float
    model: str | None
    cwd: str | None
    turns: int = 0


class SessionUsage(msgspec.Struct, frozen=True):
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0  # None: some turn used a model whose price is unknown
    cache_read_tokens: int = 0  # of input_tokens: read from the provider's prompt cache
    cache_write_tokens: int = 0  # of input_tokens: written to it


class BlockRecord(msgspec.Struct, frozen=True):
    type: str  # thinking | text | tool_use | tool_result
    text: str
    data: dict[str, Any] | None
    created: float

    def to_block(self) -> Block:
        return row_to_block(self.type, self.text, self.data)

    @property
    def is_image(self) -> bool:
        """An attached image (the user's), stored by reference."""
        return isinstance((self.data or {}).get("image"), dict)


class TurnRecord(msgspec.Struct, frozen=True):
    id: int
    seq: int
    user_text: str
    created: float
    completed: float | None
    stop_reason: str | None
    input_tokens: int
    output_tokens: int
    cost: float | None
    blocks: list[BlockRecord] = msgspec.field(default_factory=list)
    rewound: float | None = None  # taken back by /rewind: no longer sent to the model
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


def make_title(text: str) -> str | None:
    """The first non-empty line, cut to about 60 characters."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not line:
        return None
    line = " ".join(line.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def block_to_row(block: Block, step: int | None = None) -> tuple[str, str, str | None]:
    """(block_type, text, json) with secrets redacted from the text; ``step`` (the
    request of the turn the block belongs to) goes into the json when given."""
    extra: dict[str, Any] = {} if step is None else {"step": step}
    if isinstance(block, TextBlock):
        return "text", redact(block.text), json.dumps(extra) if extra else None
    if isinstance(block, ImageBlock):  # by reference: the bytes live in the images dir
        from swebash_py.images import placeholder

        ref = {"media_type": block.media_type, "sha256": block.sha256}
        if block.call_id is not None:  # a tool's image: it goes back inside its result
            ref["call_id"] = block.call_id
        return "text", placeholder(block), json.dumps({"image": ref, **extra})
    if isinstance(block, ThinkingBlock):
        meta = {"signature": block.signature, **extra}
        if block.redacted_data is not None:
            meta["redacted_data"] = block.redacted_data
        return "thinking", redact(block.text), json.dumps(meta)
    if isinstance(block, ToolUseBlock):
        meta = {"id": block.id, "name": block.name, **extra}
        return "tool_use", redact(block.arguments), json.dumps(meta)
    meta2 = {"call_id": block.call_id, "name": block.name, "is_error": block.is_error, **extra}
    return "tool_result", redact(block.content), json.dumps(meta2)


def in_request_order(blocks: list[BlockRecord]) -> list[BlockRecord]:
    """A turn's blocks as the requests saw them: by step, each step's reply
    before its tool results. Results are committed as each call ends, so one
    may be stored before the rest of its reply; rows without a step (written
    by older versions) keep their stored order."""
    steps = [(b.data or {}).get("step") for b in blocks]
    if not blocks or not all(isinstance(s, int) for s in steps):
        return blocks
    order = sorted(range(len(blocks)),
                   key=lambda i: (steps[i], blocks[i].type == "tool_result", i))
    return [blocks[i] for i in order]


def row_to_block(block_type: str, text: str, data: dict[str, Any] | None) -> Block:
    data = data or {}
    if block_type == "thinking":
        return ThinkingBlock(text, data.get("signature"), redacted_data=data.get("redacted_data"))
    if block_type == "tool_use":
        return ToolUseBlock(str(data.get("id", "")), str(data.get("name", "")), text)
    if block_type == "tool_result":
        return ToolResultBlock(str(data.get("call_id", "")), str(data.get("name", "")), text,
                               bool(data.get("is_error", False)))
    if isinstance(ref := data.get("image"), dict):
        from swebash_py.images import load

        call_id = ref.get("call_id")
        return load(str(ref.get("media_type", "")), str(ref.get("sha256", "")),
                    call_id if isinstance(call_id, str) else None)
    return TextBlock(text)


def parse_json(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def messages_to_json(messages: list[Message]) -> str:
    """A history as JSON rows (secrets redacted), for a checkpoint."""
    rows = [{"role": m.role, "blocks": [list(block_to_row(b)) for b in m.blocks]}
            for m in messages]
    return json.dumps(rows, ensure_ascii=False)


def messages_from_json(raw: str) -> list[Message]:
    """The history a checkpoint stored (invalid rows are skipped)."""
    out: list[Message] = []
    for row in json.loads(raw):
        role: Role = "assistant" if row.get("role") == "assistant" else "user"
        blocks = [row_to_block(kind, text, parse_json(meta))
                  for kind, text, meta in row.get("blocks", [])]
        if blocks:
            out.append(Message(role, blocks))
    return out
