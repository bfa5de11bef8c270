"""Anthropic prompt caching: where the ``cache_control`` breakpoints go.

Anthropic caches the prefix of a request up to each block marked
``cache_control`` (at most four marks). We mark the system prompt, the last
tool (tools come first in the prefix), and the last block of the two latest
user messages: the latest is written to the cache for the next request of the
tool loop, the one before it is what the previous request wrote, read back.
Pure functions on request bodies, for the direct backend and for litellm.
"""

from __future__ import annotations

from typing import Any

from swebash_py.engine.messages import Message

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
MESSAGE_BREAKPOINTS = 2


def boundaries(messages: list[Message]) -> list[int]:
    """Indices of the user messages that end a stable prefix (the latest two)."""
    users = [i for i, m in enumerate(messages) if m.role == "user" and m.blocks]
    return users[-MESSAGE_BREAKPOINTS:]


def wants_caching(model: str) -> bool:
    """Whether ``model`` (a litellm model string) takes Anthropic cache_control."""
    return model.startswith("anthropic/") or "claude" in model.lower()


def mark_anthropic_body(body: dict[str, Any], messages: list[Message]) -> None:
    """Mark a Messages API body in place (its messages map 1:1 to ``messages``)."""
    if isinstance(body.get("system"), str) and body["system"]:
        body["system"] = [{"type": "text", "text": body["system"],
                           "cache_control": dict(EPHEMERAL)}]
    if body.get("tools"):
        body["tools"][-1]["cache_control"] = dict(EPHEMERAL)
    for index in boundaries(messages):
        content = body["messages"][index].get("content")
        if isinstance(content, list) and content:
            content[-1]["cache_control"] = dict(EPHEMERAL)


def mark_openai_message(message: dict[str, Any]) -> None:
    """Mark one OpenAI-shaped message the way litellm passes it on to Anthropic:
    a ``tool`` message at its top level, others on their last content part."""
    if message.get("role") == "tool":
        message["cache_control"] = dict(EPHEMERAL)
        return
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return
        message["content"] = content = [{"type": "text", "text": content}]
    if isinstance(content, list) and content:
        content[-1]["cache_control"] = dict(EPHEMERAL)


def count_breakpoints(value: Any) -> int:
    """How many ``cache_control`` marks a request body holds (for tests and checks)."""
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(count_breakpoints(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_breakpoints(v) for v in value)
    return 0
