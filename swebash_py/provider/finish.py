"""Finish reasons: every provider's own words mapped onto one ``FinishReason``.

Backends call ``normalize`` at the boundary, so nothing past the provider
layer sees a raw string; the raw reason is kept on ``Finish.raw`` for the
message the user reads.
"""

from __future__ import annotations

from swebash_py.events import Finish, FinishReason

_REASONS: dict[str, FinishReason] = {
    # OpenAI and OpenAI-compatible servers
    "stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls",
    "length": "length", "content_filter": "content_filter", "refusal": "refusal",
    "eos": "stop", "eos_token": "stop",
    # Anthropic
    "end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
    "max_tokens": "length", "model_context_window_exceeded": "length",
    # Gemini (native and its OpenAI-compatible endpoint)
    "finish_reason_unspecified": "stop", "safety": "content_filter",
    "recitation": "content_filter", "blocklist": "content_filter",
    "prohibited_content": "content_filter", "spii": "content_filter",
    "image_safety": "content_filter", "malformed_function_call": "malformed_tool_call",
    "unexpected_tool_call": "malformed_tool_call",
}


def normalize(raw: str | None, *, has_calls: bool = False) -> Finish:
    """The ``Finish`` event for a provider's reason (``None``: the stream gave none)."""
    if not raw:
        return Finish("tool_calls" if has_calls else "stop")
    reason = _REASONS.get(raw.strip().lower(), "other")
    plain = reason in ("stop", "tool_calls", "length") or raw == reason
    return Finish(reason, "" if plain else raw)


def user_message(finish: Finish) -> str | None:
    """One line in our words for a reason the user must hear about (else None)."""
    said = f" ({finish.raw})" if finish.raw else ""
    if finish.reason == "refusal":
        return f"the model declined to answer{said}"
    if finish.reason == "content_filter":
        return f"the provider's content filter stopped the answer{said}"
    if finish.reason == "malformed_tool_call":
        return (f"the model produced a tool call the provider could not parse{said}; "
                "ask again, or rephrase")
    if finish.reason == "other":
        return f"the model stopped for a reason we do not know: {finish.raw or 'none given'}"
    return None
