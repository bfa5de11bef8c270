"""OpenAI Chat Completions wire format: request bodies and the streamed reply.

Pure functions and a stateful parser; no I/O. Tool calls are assembled by
``index`` (fragments of parallel calls interleave); a call is ready as soon as
its arguments parse as a complete JSON object, the rest at the end of the stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from swebash_py.engine.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from swebash_py.errors import StreamCut
from swebash_py.events import (
    Finish,
    ProviderEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
    UsageReport,
)
from swebash_py.provider import local
from swebash_py.provider.base import ChatRequest, ToolSpec
from swebash_py.provider.finish import normalize

# ---------------------------------------------------------------- request


def build_request(request: ChatRequest, model: str) -> dict[str, Any]:
    """The JSON body of a streaming ``/chat/completions`` request."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        messages.extend(convert_message(message))
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": True,
                            "stream_options": {"include_usage": True}}
    if request.tools:
        body["tools"] = [tool_spec(t) for t in request.tools]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if (size := local.num_ctx(request)) is not None:
        body["options"] = {"num_ctx": size}
    return body


def tool_spec(tool: ToolSpec) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}}


def convert_message(message: Message) -> list[dict[str, Any]]:
    """One of our messages as OpenAI messages (tool results become ``tool`` messages)."""
    if message.role == "assistant":
        return [_assistant(message)]
    results = message.tool_results()
    out: list[dict[str, Any]] = [_tool_message(b) for b in results]
    text = join_texts([b.text for b in message.blocks if isinstance(b, TextBlock)])
    if images := message.images():
        # a tool message carries no image: a tool's images follow the results in a
        # user message, each tool's under a line naming its call
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for result in results:
            if returned := [b for b in images if b.call_id == result.call_id]:
                parts.append({"type": "text", "text": f"[the image(s) {result.name} returned "
                                                      f"(call {result.call_id})]"})
                parts += map(_image_part, returned)
        calls = {b.call_id for b in results}
        parts += [_image_part(b) for b in images if b.call_id not in calls]
        out.append({"role": "user", "content": parts})
    elif text or not out:
        out.append({"role": "user", "content": text})
    return out


def _image_part(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": block.data_url()}}


def join_texts(parts: list[str]) -> str:
    """Text blocks of one user message as one string: separate turns merged into one
    message (or an appended instruction) stay apart, never glued mid-word."""
    out = ""
    for part in parts:
        if out and part and not out.endswith("\n") and not part.startswith("\n"):
            out += "\n\n"
        out += part
    return out


def _assistant(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    calls = [b for b in message.blocks if isinstance(b, ToolUseBlock)]
    if calls:
        out["tool_calls"] = [{"id": c.id, "type": "function", "function": {
            "name": c.name, "arguments": c.arguments or "{}"}} for c in calls]
    elif out["content"] is None:
        out["content"] = ""
    return out


def _tool_message(block: ToolResultBlock) -> dict[str, Any]:
    content = block.content
    if block.is_error and not content.startswith("Error:"):
        content = f"Error: {content}"
    return {"role": "tool", "tool_call_id": block.call_id, "content": content}


# ---------------------------------------------------------------- reply


@dataclass
class _Call:
    id: str
    name: str
    arguments: str = ""
    ready: bool = False


def complete_object(text: str) -> bool:
    """Whether ``text`` is a complete JSON object (nothing valid can extend it)."""
    stripped = text.strip()
    if not stripped.endswith("}") or not stripped.startswith("{"):
        return False
    try:
        return isinstance(json.loads(stripped), dict)
    except ValueError:
        return False


class OpenAIParser:
    """Turns ``chat.completion.chunk`` SSE data into provider events."""

    def __init__(self) -> None:
        self.calls: dict[int, _Call] = {}
        self.finish: str | None = None
        self.usage: UsageReport | None = None
        self.refused = self.refusal_opened = self.texted = False
        self.done = False

    def feed(self, event: str, data: str) -> list[ProviderEvent]:
        """One SSE ``data:`` payload."""
        if data == "[DONE]":
            self.done = True
            return self._close()
        return self.feed_chunk(json.loads(data))

    def feed_chunk(self, chunk: dict[str, Any]) -> list[ProviderEvent]:
        """One parsed ``chat.completion.chunk`` (litellm hands us these directly)."""
        if "error" in chunk:
            raise StreamCut(f"provider error mid-stream: {_error_text(chunk['error'])}")
        if chunk.get("usage"):
            self.usage = _usage(chunk["usage"])
        out: list[ProviderEvent] = []
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thinking, str) and thinking:
                out.append(ThinkingDelta(thinking))
            texts = content_events(delta.get("content"))
            self.texted = self.texted or bool(texts)
            out.extend(texts)
            if delta.get("refusal"):  # OpenAI: the refusal is the answer
                self.refused = True
                out.append(TextDelta(str(delta["refusal"])))
            elif delta.get("refusal") == "":  # opened; litellm drops the words after it
                self.refusal_opened = True
            if delta.get("tool_calls"):
                self._tool_deltas(delta["tool_calls"], out)
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])
        return out

    def end(self) -> list[ProviderEvent]:
        """The body ended without ``[DONE]``: fine after a finish reason, else cut."""
        if self.done:
            return []
        if self.finish is None:
            raise StreamCut("the stream ended before the model finished")
        self.done = True
        return self._close()

    def _tool_deltas(self, deltas: list[dict[str, Any]], out: list[ProviderEvent]) -> None:
        for tc in deltas:
            index = self._index_of(tc)
            fn = tc.get("function") or {}
            call = self.calls.get(index)
            if call is None:
                call = self.calls[index] = _Call(tc.get("id") or f"call_{index}",
                                                 fn.get("name") or "")
                out.append(ToolCallStart(index, call.id, call.name))
            fragment = fn.get("arguments")
            if fragment:
                call.arguments += fragment
                out.append(ToolCallDelta(index, fragment))
                if not call.ready and complete_object(call.arguments):
                    call.ready = True
                    out.append(ToolCallReady(index, call.id, call.name, call.arguments))

    def _index_of(self, tc: dict[str, Any]) -> int:
        """The call a delta belongs to; some servers omit ``index`` (then: by id)."""
        if isinstance(tc.get("index"), int):
            return int(tc["index"])
        ids = {call.id: i for i, call in self.calls.items()}
        if tc.get("id"):
            return ids.get(tc["id"], len(self.calls))
        return max(self.calls, default=0)

    def _close(self) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        for index in sorted(self.calls):
            call = self.calls[index]
            if not call.ready:
                call.ready = True
                out.append(ToolCallReady(index, call.id, call.name, call.arguments or "{}"))
        if self.usage is not None:
            out.append(self.usage)
        finish = normalize(self.finish, has_calls=bool(self.calls))
        refused = self.refused or (self.refusal_opened and not self.texted)
        if refused and finish.reason == "stop":
            finish = Finish("refusal")
        out.append(finish)
        return out


def content_events(content: Any) -> list[ProviderEvent]:
    """``delta.content``: a string, or (Mistral) a list of typed parts, where
    ``thinking`` parts hold a list of text parts of their own."""
    if isinstance(content, str):
        return [TextDelta(content)] if content else []
    if not isinstance(content, list):
        return []
    out: list[ProviderEvent] = []
    for part in content:
        if isinstance(part, str):
            out.extend(content_events(part))
        elif isinstance(part, dict) and part.get("type") == "thinking":
            text = _part_text(part.get("thinking"))
            if text:
                out.append(ThinkingDelta(text))
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
            out.append(TextDelta(part["text"]))
    return out


def _part_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_part_text(v.get("text") if isinstance(v, dict) else v) for v in value)
    return ""


def _usage(usage: dict[str, Any]) -> UsageReport:
    """OpenAI's automatic caching reports ``prompt_tokens_details.cached_tokens``;
    litellm adds Anthropic's ``cache_read/creation_input_tokens`` (all inside
    ``prompt_tokens``)."""
    details = usage.get("prompt_tokens_details") or {}
    return UsageReport(input_tokens=usage.get("prompt_tokens") or 0,
                       output_tokens=usage.get("completion_tokens") or 0,
                       cache_read_tokens=(details.get("cached_tokens")
                                          or usage.get("cache_read_input_tokens") or 0),
                       cache_write_tokens=usage.get("cache_creation_input_tokens") or 0)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)
