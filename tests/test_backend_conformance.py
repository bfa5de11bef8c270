"""One suite, both backends (direct and litellm), both wire formats: the same
scripted reply must give the same events, and the same failure the same error."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from swebash_py.engine.messages import Message
from swebash_py.errors import (
    AuthenticationFailed,
    ContextTooLong,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    StreamCut,
)
from swebash_py.events import (
    Finish,
    ProviderEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallReady,
    UsageReport,
)
from swebash_py.provider.base import Backend, ChatRequest, ToolSpec
from swebash_py.provider.direct import DirectBackend
from swebash_py.provider.litellm_backend import LiteLLMBackend
from tests.agent.helpers import MODELS
from tests.fakeprovider import ErrorReply, FakeProvider, Reply, ToolCall

TOOLS = [ToolSpec("peek", "Look.", {"type": "object", "properties": {"label": {"type": "string"}}})]


@pytest.fixture(params=["direct", "litellm"])
def backend_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_backend(name: str, wire: str) -> Backend:
    return DirectBackend(wire) if name == "direct" else LiteLLMBackend()  # type: ignore[arg-type]


def request_for(fp: FakeProvider, wire: str, tools: bool = True) -> ChatRequest:
    return ChatRequest(model=MODELS[wire], messages=[Message.user("hi")], api_base=fp.url,
                       api_key="test-key", tools=TOOLS if tools else [], max_tokens=256,
                       stall_timeout=2.0)


async def collect(backend: Backend, request: ChatRequest) -> list[ProviderEvent]:
    return [event async for event in backend.stream(request)]


def summary(events: list[ProviderEvent]) -> dict[str, Any]:
    """What any backend must agree on, whatever its chunking."""
    return {
        "text": "".join(e.text for e in events if isinstance(e, TextDelta)),
        "thinking": "".join(e.text for e in events if isinstance(e, ThinkingDelta)),
        "signatures": [e.signature for e in events if isinstance(e, ThinkingSignature)],
        "calls": [(e.id, e.name, e.arguments) for e in events if isinstance(e, ToolCallReady)],
        "usage": [(e.input_tokens, e.output_tokens) for e in events
                  if isinstance(e, UsageReport)][-1:],
        "finish": [e.reason for e in events if isinstance(e, Finish)],
    }


async def test_text_and_usage(fake_provider: FakeProvider, backend_name: str,
                              wire: str) -> None:
    fake_provider.queue(Reply(text="Hello, conformance.", chunk_size=3, usage=(12, 7)))
    events = await collect(make_backend(backend_name, wire), request_for(fake_provider, wire))
    assert summary(events) == {"text": "Hello, conformance.", "thinking": "", "signatures": [],
                               "calls": [], "usage": [(12, 7)], "finish": ["stop"]}


async def test_parallel_interleaved_tool_calls(fake_provider: FakeProvider, backend_name: str,
                                               wire: str) -> None:
    calls = [ToolCall("call_a", "peek", '{"label": "first"}'),
             ToolCall("call_b", "peek", '{"label": "second"}'),
             ToolCall("call_c", "peek", '{"label": "third"}')]
    fake_provider.queue(Reply(text="Looking.", tool_calls=calls, interleave=True, chunk_size=4))
    events = await collect(make_backend(backend_name, wire), request_for(fake_provider, wire))
    got = summary(events)
    assert got["text"] == "Looking."
    assert sorted(got["calls"]) == [(c.id, c.name, c.arguments) for c in calls]
    assert got["finish"] == ["tool_calls"]
    assert isinstance(events[-1], Finish)


async def test_thinking_with_signature(fake_provider: FakeProvider, backend_name: str) -> None:
    fake_provider.queue(Reply(thinking="Consider the port.", signature="sig-xyz",
                              text="It is free."))
    events = await collect(make_backend(backend_name, "anthropic"),
                           request_for(fake_provider, "anthropic"))
    got = summary(events)
    assert got["thinking"] == "Consider the port."
    assert got["signatures"] == ["sig-xyz"]
    assert got["text"] == "It is free."


@pytest.mark.parametrize(("reply", "error", "retry_after"), [
    (ErrorReply(401), AuthenticationFailed, None),
    (ErrorReply(429, headers={"retry-after": "3"}), RateLimited, 3.0),
    (ErrorReply(503), ProviderUnavailable, None),
    (ErrorReply.context_exceeded(), ContextTooLong, None),
], ids=["401", "429", "503", "context"])
async def test_error_statuses(fake_provider: FakeProvider, backend_name: str, wire: str,
                              reply: ErrorReply, error: type[ProviderError],
                              retry_after: float | None) -> None:
    fake_provider.queue(reply)
    with pytest.raises(ProviderError) as info:
        await collect(make_backend(backend_name, wire), request_for(fake_provider, wire))
    assert type(info.value) is error, str(info.value)
    if retry_after is not None:
        assert info.value.retry_after == retry_after
    assert len(fake_provider.requests) == 1  # backends never retry on their own


async def test_cut_stream(fake_provider: FakeProvider, backend_name: str, wire: str) -> None:
    fake_provider.queue(Reply(text="partial answer that never ends", chunk_size=4, cut_after=3))
    with pytest.raises(ProviderError) as info:
        await collect(make_backend(backend_name, wire), request_for(fake_provider, wire))
    assert isinstance(info.value, (StreamCut, ProviderUnavailable)), type(info.value)
    assert info.value.retryable


async def test_cancellation_closes_the_connection(fake_provider: FakeProvider,
                                                  backend_name: str, wire: str) -> None:
    fake_provider.queue(Reply(text="slow " * 200, chunk_size=5, delay=0.02))
    started = asyncio.Event()

    async def consume() -> None:
        async for _event in make_backend(backend_name, wire).stream(
                request_for(fake_provider, wire)):
            started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(fake_provider.wait_for_disconnect, 1)
