"""Provider-neutral conversation: messages made of typed blocks.

A conversation alternates ``user`` and ``assistant`` messages. An assistant
message holds thinking, text and tool_use blocks; the user message after it
holds exactly one tool_result per tool_use, in the same order. Each backend
turns these into its own wire format.

Blocks and messages are (mutable) ``msgspec.Struct`` classes: built in C at
import, where a dataclass exec()s its generated methods. Copy one with a change
through ``msgspec.structs.replace``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import msgspec

Role = Literal["user", "assistant"]


def json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class TextBlock(msgspec.Struct):
    text: str
    kind: Literal["text"] = "text"


class ThinkingBlock(msgspec.Struct):
    """Visible reasoning; ``redacted_data`` holds an encrypted block (Anthropic
    ``redacted_thinking``) that has no text but must be sent back as it came."""

    text: str
    signature: str | None = None
    kind: Literal["thinking"] = "thinking"
    redacted_data: str | None = None


class ToolUseBlock(msgspec.Struct):
    """A tool call as the model emitted it; ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str
    kind: Literal["tool_use"] = "tool_use"

    def parsed_input(self) -> dict[str, Any]:
        """The arguments as a dict, or ``{}`` when they are not a JSON object."""
        return json_object(self.arguments or "{}") or {}


class ToolResultBlock(msgspec.Struct):
    call_id: str
    name: str
    content: str
    is_error: bool = False
    kind: Literal["tool_result"] = "tool_result"


class ImageBlock(msgspec.Struct):
    """An image the user attached or a tool returned: ``data`` is base64; ``sha256``
    names the content-addressed copy in the data dir, which is what the store keeps.
    ``call_id`` names the tool call that returned it (None: the user's), so a wire
    format that can put an image inside its tool result (Anthropic) does."""

    media_type: str  # image/png, image/jpeg, image/gif, image/webp
    sha256: str
    data: str = ""  # left out of the repr
    kind: Literal["image"] = "image"
    call_id: str | None = None

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.data}"

    def __repr__(self) -> str:  # without the (long) base64 data
        tool = "" if self.call_id is None else f", call_id={self.call_id!r}"
        return (f"ImageBlock(media_type={self.media_type!r}, sha256={self.sha256!r},"
                f" kind={self.kind!r}{tool})")


Block = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock


class Message(msgspec.Struct, weakref=True):  # weakref: engine/tokens caches by message
    role: Role
    blocks: list[Block] = msgspec.field(default_factory=list)

    @classmethod
    def user(cls, text: str) -> Message:
        return cls("user", [TextBlock(text)])

    @property
    def text(self) -> str:
        """The concatenated text blocks."""
        return "".join(b.text for b in self.blocks if isinstance(b, TextBlock))

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.blocks if isinstance(b, ToolUseBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        return [b for b in self.blocks if isinstance(b, ToolResultBlock)]

    def images(self) -> list[ImageBlock]:
        return [b for b in self.blocks if isinstance(b, ImageBlock)]
