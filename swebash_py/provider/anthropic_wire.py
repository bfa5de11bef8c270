"""Anthropic Messages wire format: request bodies and the streamed reply.

Pure functions and a stateful parser; no I/O. Tool calls are numbered 0, 1, ...
in the order their blocks start (not by content-block index), as litellm does,
and are ready at their ``content_block_stop``.
"""

from __future__ import annotations

import json
from typing import Any

from swebash_py.engine.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from swebash_py.errors import StreamCut
from swebash_py.events import (
    ProviderEvent,
    RedactedThinking,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
    UsageReport,
)
from swebash_py.provider import caching
from swebash_py.provider.base import ChatRequest, ToolSpec
from swebash_py.provider.finish import normalize

DEFAULT_MAX_TOKENS = 8192


# ---------------------------------------------------------------- request


def build_request(request: ChatRequest, model: str) -> dict[str, Any]:
    """The JSON body of a streaming ``/v1/messages`` request."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": [convert_message(m) for m in request.messages],
        "stream": True,
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [tool_spec(t) for t in request.tools]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    caching.mark_anthropic_body(body, request.messages)
    return body


def tool_spec(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description,
            "input_schema": tool.parameters}


def convert_message(message: Message) -> dict[str, Any]:
    """One of our messages as an Anthropic message (tool results first for users)."""
    if message.role == "assistant":
        content = [c for b in message.blocks if (c := _assistant_block(b)) is not None]
    else:
        results = message.tool_results()
        calls = {b.call_id for b in results}
        content = [_tool_result(b, [i for i in message.images() if i.call_id == b.call_id])
                   for b in results]
        # the user's images (and a tool's whose result is not here) after the results
        content += [_image(b) for b in message.images() if b.call_id not in calls]
        content += [{"type": "text", "text": b.text} for b in message.blocks
                    if isinstance(b, TextBlock) and b.text]
    return {"role": message.role, "content": content}


def _assistant_block(block: Any) -> dict[str, Any] | None:
    if isinstance(block, ThinkingBlock):
        if block.redacted_data is not None:
            return {"type": "redacted_thinking", "data": block.redacted_data}
        if block.signature is None:  # unsigned thinking cannot be sent back
            return None
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name,
                "input": block.parsed_input()}
    return None


def _tool_result(block: ToolResultBlock, images: list[ImageBlock]) -> dict[str, Any]:
    """A tool result; the images the call returned go inside it, after its text."""
    content: str | list[dict[str, Any]] = block.content
    if images:
        content = [{"type": "text", "text": block.content}, *map(_image, images)]
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.call_id,
                           "content": content}
    if block.is_error:
        out["is_error"] = True
    return out


def _image(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block.media_type,
                                        "data": block.data}}


# ---------------------------------------------------------------- reply


class AnthropicParser:
    """Turns Messages SSE events into provider events."""

    def __init__(self) -> None:
        self.tools: dict[int, tuple[int, str, str]] = {}  # block -> (ordinal, id, name)
        self.arguments: dict[int, list[str]] = {}
        self.usage: dict[str, int] = {}
        self.stop_reason: str | None = None
        self.done = False

    def feed(self, event: str, data: str) -> list[ProviderEvent]:
        payload = json.loads(data)
        kind = payload.get("type", event)
        if kind == "content_block_delta":
            return self._delta(payload["index"], payload["delta"])
        if kind == "content_block_start":
            return self._start(payload["index"], payload["content_block"])
        if kind == "content_block_stop":
            return self._stop(payload["index"])
        if kind == "message_start":
            self._add_usage(payload.get("message", {}).get("usage") or {})
        elif kind == "message_delta":
            reason = (payload.get("delta") or {}).get("stop_reason")
            if reason:
                self.stop_reason = str(reason)
            self._add_usage(payload.get("usage") or {})
        elif kind == "message_stop":
            self.done = True
            return [self._usage_report(),
                    normalize(self.stop_reason, has_calls=bool(self.tools))]
        elif kind == "error":
            error = payload.get("error") or {}
            raise StreamCut(f"provider error mid-stream: {error.get('type', 'error')}: "
                            f"{error.get('message', data)}")
        return []

    def end(self) -> list[ProviderEvent]:
        """The body ended without ``message_stop``: fine after the stop reason
        (``message_delta``: a body whose last event lacks its blank line loses
        ``message_stop`` by the SSE standard, nothing of the answer), else cut."""
        if self.done:
            return []
        if self.stop_reason is None:
            raise StreamCut("the stream ended before the model finished")
        self.done = True
        return [self._usage_report(), normalize(self.stop_reason, has_calls=bool(self.tools))]

    def _start(self, index: int, block: dict[str, Any]) -> list[ProviderEvent]:
        if block.get("type") == "redacted_thinking":
            return [RedactedThinking(str(block.get("data", "")))]
        if block.get("type") != "tool_use":
            return []
        ordinal = len(self.tools)
        self.tools[index] = (ordinal, block.get("id", f"toolu_{ordinal}"), block.get("name", ""))
        self.arguments[index] = []
        return [ToolCallStart(ordinal, self.tools[index][1], self.tools[index][2])]

    def _delta(self, index: int, delta: dict[str, Any]) -> list[ProviderEvent]:
        kind = delta.get("type")
        if kind == "text_delta":
            return [TextDelta(delta["text"])] if delta["text"] else []
        if kind == "thinking_delta":
            return [ThinkingDelta(delta["thinking"])] if delta["thinking"] else []
        if kind == "signature_delta":
            return [ThinkingSignature(delta["signature"])]
        if kind == "input_json_delta" and index in self.tools and delta.get("partial_json"):
            self.arguments[index].append(delta["partial_json"])
            return [ToolCallDelta(self.tools[index][0], delta["partial_json"])]
        return []

    def _stop(self, index: int) -> list[ProviderEvent]:
        if index not in self.tools:
            return []
        ordinal, call_id, name = self.tools[index]
        arguments = "".join(self.arguments[index]) or "{}"
        return [ToolCallReady(ordinal, call_id, name, arguments)]

    def _add_usage(self, usage: dict[str, Any]) -> None:
        for key, value in usage.items():
            if isinstance(value, int):
                self.usage[key] = value

    def _usage_report(self) -> UsageReport:
        u = self.usage
        read, write = u.get("cache_read_input_tokens", 0), u.get("cache_creation_input_tokens", 0)
        # Anthropic's input_tokens leaves out what was read from or written to the
        # cache; ours is the whole prompt (as OpenAI's prompt_tokens is).
        return UsageReport(input_tokens=u.get("input_tokens", 0) + read + write,
                           output_tokens=u.get("output_tokens", 0),
                           cache_read_tokens=read, cache_write_tokens=write)
