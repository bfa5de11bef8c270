"""The litellm backend: every provider litellm speaks.

This is the only module that imports litellm, and it does so lazily (the
import costs 3-4 s): never on the path of ``--help``, ``--version`` or the
first prompt. ``preload()`` warms it in a background thread. Offline settings
are applied before the import so nothing phones home. litellm's chunks are
the OpenAI chunk shape, so the OpenAI stream parser turns them into events;
litellm's exceptions become ours here.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx

from swebash_py.engine.messages import ThinkingBlock
from swebash_py.errors import (
    MissingApiKey,
    ProviderError,
    StreamStalled,
)
from swebash_py.events import ProviderEvent, RedactedThinking, ThinkingSignature
from swebash_py.provider import caching, local, openai_wire, sse_canonical
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.idle import idle_limited
from swebash_py.provider.litellm_errors import map_exception
from swebash_py.provider.retry import REFUSED_RETRIES, connection_refused
from swebash_py.provider.streamcheck import check_content_type

_OFFLINE = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "HF_HUB_OFFLINE": "1",
    "LITELLM_TELEMETRY": "False",
}
_lock = threading.Lock()
_module: Any = None


def load() -> Any:
    """Import litellm once, offline, quiet; returns the module."""
    global _module
    with _lock:
        if _module is None:
            for key, value in _OFFLINE.items():
                os.environ.setdefault(key, value)
            import litellm

            litellm.suppress_debug_info = True
            litellm.disable_hf_tokenizer_download = True
            litellm.telemetry = False
            litellm.drop_params = True
            logging.getLogger("LiteLLM").setLevel(logging.CRITICAL)
            _read_sse_ourselves()
            _module = litellm
    return _module


def _read_sse_ourselves() -> None:
    """Put our SSE reader in front of litellm's (``sse_canonical``). Where the hook
    point is missing (a stand-in litellm in a test; the pin guards the real one,
    tests/provider/test_litellm_sse.py) litellm reads its streams itself, as before."""
    try:
        from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler
    except ImportError:
        return
    sse_canonical.install(AsyncHTTPHandler)


def preload() -> threading.Thread:
    """Start importing litellm in the background."""
    thread = threading.Thread(target=load, name="litellm-import", daemon=True)
    thread.start()
    return thread


class LiteLLMBackend:
    """Streams a reply through ``litellm.acompletion``."""

    name = "litellm"

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        litellm = load()
        self._check_key(litellm, request)
        kwargs = self._arguments(request)
        started = False
        try:
            response = await litellm.acompletion(**kwargs)
            headers = (getattr(response, "_hidden_params", None) or {}).get(
                "additional_headers") or {}
            check_content_type(headers.get("llm_provider-content-type"), request.model)
            parser = openai_wire.OpenAIParser()
            started = True
            async for chunk in idle_limited(response, request.stall_timeout, request.model):
                for event in parser.feed_chunk(chunk.model_dump(exclude_none=True)):
                    yield event
                for event in thinking_block_events(chunk):
                    yield event
            for event in parser.end():
                yield event
        except ProviderError:
            raise
        except Exception as exc:
            if type(exc).__name__ in ("Timeout", "APITimeoutError"):  # bounded, not retried
                raise StreamStalled(f"stalled: no answer from {request.model} for "
                                    f"{request.stall_timeout:g} s (stream_idle_timeout)") from exc
            mapped = map_exception(exc, request.model, request.api_base, midstream=started)
            if connection_refused(exc):
                mapped.retry_limit = REFUSED_RETRIES
            raise mapped from exc

    @staticmethod
    def _check_key(litellm: Any, request: ChatRequest) -> None:
        if request.api_key or request.api_base:
            return
        try:
            report = litellm.validate_environment(model=request.model)
        except Exception as exc:
            raise map_exception(exc, request.model, request.api_base) from exc
        missing = report.get("missing_keys") or []
        if missing and not report.get("keys_in_environment"):
            raise MissingApiKey(f"no API key for {request.model}: set the "
                                f"{' or '.join(missing)} environment variable")

    @staticmethod
    def _arguments(request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": build_messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
            "num_retries": 0,
            "max_retries": 0,
            "timeout": httpx.Timeout(request.timeout, connect=request.connect_timeout,
                                     read=request.stall_timeout),
        }
        if request.tools:
            kwargs["tools"] = [openai_wire.tool_spec(tool) for tool in request.tools]
            kwargs["_skip_mcp_handler"] = True  # litellm 1.106.2 bug, see LITELLM.md
            if caching.wants_caching(request.model):
                kwargs["tools"][-1]["cache_control"] = dict(caching.EPHEMERAL)
        optional = {"temperature": request.temperature, "max_tokens": request.max_tokens,
                    "api_base": request.api_base, "api_key": request.api_key}
        kwargs.update({k: v for k, v in optional.items() if v is not None})
        if (size := local.num_ctx(request)) is not None:
            kwargs["num_ctx"] = size  # litellm's Ollama routes put it in the native options
        return kwargs


def build_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """OpenAI-shaped messages, with Anthropic thinking blocks (and their
    signatures) carried the way litellm expects them."""
    messages: list[dict[str, Any]] = []
    cache = caching.wants_caching(request.model)
    if request.system:
        system: dict[str, Any] = {"role": "system", "content": request.system}
        if cache:
            caching.mark_openai_message(system)
        messages.append(system)
    marked = set(caching.boundaries(request.messages)) if cache else set()
    for index, message in enumerate(request.messages):
        converted = openai_wire.convert_message(message)
        if index in marked:
            caching.mark_openai_message(converted[-1])
        thinking = [_thinking_block(b) for b in message.blocks
                    if isinstance(b, ThinkingBlock) and (b.signature or b.redacted_data)]
        if thinking and message.role == "assistant":
            converted[0]["thinking_blocks"] = thinking
        messages.extend(converted)
    return messages


def _thinking_block(block: ThinkingBlock) -> dict[str, Any]:
    if block.redacted_data is not None:
        return {"type": "redacted_thinking", "data": block.redacted_data}
    return {"type": "thinking", "thinking": block.text, "signature": block.signature}


def thinking_block_events(chunk: Any) -> list[ProviderEvent]:
    """What litellm carries in ``delta.thinking_blocks`` beyond the text: a
    signature arriving on its own (Anthropic; litellm also tags each Mistral
    thinking piece with a made-up one, which would split the block) and
    redacted (encrypted) blocks."""
    try:
        delta = chunk.choices[0].delta
    except (AttributeError, IndexError):
        return []
    found: list[ProviderEvent] = []
    for block in getattr(delta, "thinking_blocks", None) or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "redacted_thinking" and block.get("data"):
            found.append(RedactedThinking(str(block["data"])))
        elif block.get("signature") and not block.get("thinking"):
            found.append(ThinkingSignature(str(block["signature"])))
    return found
