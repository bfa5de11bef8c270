"""The direct httpx backend against the scripted loopback provider, both wire formats."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from swebash_py.engine.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from swebash_py.errors import (
    AuthenticationFailed,
    BadRequest,
    ContextTooLong,
    MissingApiKey,
    ModelNotFound,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    StreamCut,
    StreamStalled,
)
from swebash_py.events import (
    Finish,
    ProviderEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStart,
    UsageReport,
)
from swebash_py.provider.base import ChatRequest, ToolSpec
from swebash_py.provider.direct import DirectBackend
from tests.fakeprovider import ErrorReply, FakeProvider, Reply, ToolCall


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def backend(wire: str) -> AsyncIterator[DirectBackend]:
    b = DirectBackend(wire)  # type: ignore[arg-type]
    yield b
    await b.aclose()


def chat(wire: str, fp: FakeProvider, **kw: Any) -> ChatRequest:
    kw.setdefault("messages", [Message.user("hi")])
    return ChatRequest(model=f"{wire}/model-x", api_base=fp.url, **kw)


async def run(backend: DirectBackend, fp: FakeProvider, *replies: Reply | ErrorReply,
              **kw: Any) -> list[ProviderEvent]:
    fp.queue(*replies)
    return [e async for e in backend.stream(chat(backend.wire, fp, **kw))]


async def run_until_error(backend: DirectBackend, fp: FakeProvider, reply: Reply | ErrorReply,
                          **kw: Any) -> tuple[list[ProviderEvent], ProviderError]:
    fp.queue(reply)
    events: list[ProviderEvent] = []
    with pytest.raises(ProviderError) as info:
        async for e in backend.stream(chat(backend.wire, fp, **kw)):
            events.append(e)
    return events, info.value


def text_of(events: list[ProviderEvent], kind: type[TextDelta | ThinkingDelta]) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))


async def test_text(backend: DirectBackend, fake_provider: FakeProvider) -> None:
    answer = "# Title\n\nSome *markdown* with `code` and ünïcödé 🎉.\n"
    events = await run(backend, fake_provider, Reply(text=answer, chunk_size=5))
    assert text_of(events, TextDelta) == answer
    assert all(isinstance(e, TextDelta) for e in events[:-2])
    assert events[-2:] == [UsageReport(10, 5), Finish("stop")]


async def test_thinking_with_signature(backend: DirectBackend,
                                       fake_provider: FakeProvider) -> None:
    events = await run(backend, fake_provider,
                       Reply(thinking="Let me think this through.", text="Done.",
                             signature="sig-abc", chunk_size=4))
    assert text_of(events, ThinkingDelta) == "Let me think this through."
    assert text_of(events, TextDelta) == "Done."
    last_thinking = max(i for i, e in enumerate(events) if isinstance(e, ThinkingDelta))
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert last_thinking < first_text
    signatures = [e for e in events if isinstance(e, ThinkingSignature)]
    if backend.wire == "anthropic":
        assert signatures == [ThinkingSignature("sig-abc")]
        assert last_thinking < events.index(signatures[0]) < first_text
    else:  # OpenAI reasoning_content carries no signature
        assert signatures == []


@pytest.mark.parametrize("n", [2, 3])
async def test_parallel_tool_calls(backend: DirectBackend, fake_provider: FakeProvider,
                                   n: int) -> None:
    calls = [ToolCall(f"call_{i}", f"tool_{i}", f'{{"path": "{"d/" * i}f{i}.txt", "n": {i}}}')
             for i in range(n)]
    events = await run(backend, fake_provider,
                       Reply(text="On it.", tool_calls=calls, interleave=True, chunk_size=3))
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    readies = [e for e in events if isinstance(e, ToolCallReady)]
    assert starts == [ToolCallStart(i, c.id, c.name) for i, c in enumerate(calls)]
    assert sorted(readies, key=lambda e: e.index) == [
        ToolCallReady(i, c.id, c.name, c.arguments) for i, c in enumerate(calls)]
    for i, call in enumerate(calls):
        fragments = [e.fragment for e in events
                     if isinstance(e, ToolCallDelta) and e.index == i]
        assert "".join(fragments) == call.arguments
    finish = events.index(Finish("tool_calls"))
    assert finish == len(events) - 1
    assert all(events.index(r) < finish for r in readies)
    if backend.wire == "openai":  # the first call completes before the others' fragments end
        last_fragment = max(i for i, e in enumerate(events) if isinstance(e, ToolCallDelta))
        assert events.index(readies[0]) < last_fragment
        assert readies[0].index == 0


async def test_malformed_and_empty_arguments(backend: DirectBackend,
                                             fake_provider: FakeProvider) -> None:
    calls = [ToolCall("c1", "read_file", '{"path": "a.txt"'), ToolCall("c2", "noop", "")]
    events = await run(backend, fake_provider, Reply(tool_calls=calls, chunk_size=4))
    readies = [e for e in events if isinstance(e, ToolCallReady)]
    assert readies == [ToolCallReady(0, "c1", "read_file", '{"path": "a.txt"'),
                       ToolCallReady(1, "c2", "noop", "{}")]
    assert isinstance(events[-1], Finish)


async def test_usage(backend: DirectBackend, fake_provider: FakeProvider) -> None:
    events = await run(backend, fake_provider,
                       Reply(text="x", usage=(1234, 56), cache_read=1000, cache_write=7,
                             finish="length"))
    usage = [e for e in events if isinstance(e, UsageReport)]
    cache_write = 7 if backend.wire == "anthropic" else 0  # OpenAI reports reads only
    assert usage == [UsageReport(1234, 56, 1000, cache_write)]
    assert events[-1] == Finish("length")


HTTP_DATE = "<an HTTP date a minute from when the test runs>"


@pytest.mark.parametrize(("reply", "cls", "retry_after"), [
    (ErrorReply.context_exceeded(), ContextTooLong, None),
    (ErrorReply(400, message="messages: bad role"), BadRequest, None),
    (ErrorReply(401), AuthenticationFailed, None),
    (ErrorReply(403), AuthenticationFailed, None),
    (ErrorReply(404), ModelNotFound, None),
    (ErrorReply(429, headers={"retry-after": "7"}), RateLimited, 7.0),
    (ErrorReply(429, headers={"retry-after-ms": "1500", "retry-after": "2"}), RateLimited, 1.5),
    (ErrorReply(429, headers={"retry-after": HTTP_DATE}), RateLimited, 60.0),
    (ErrorReply(429), RateLimited, None),
    (ErrorReply(500), ProviderUnavailable, None),
    (ErrorReply(503, headers={"retry-after": "4"}), ProviderUnavailable, 4.0),
    (ErrorReply(529), ProviderUnavailable, None),
], ids=lambda v: str(getattr(v, "status", v)))
async def test_error_statuses(backend: DirectBackend, fake_provider: FakeProvider,
                              reply: ErrorReply, cls: type[ProviderError],
                              retry_after: float | None) -> None:
    if reply.headers.get("retry-after") == HTTP_DATE:  # made now, not at collection time
        reply = ErrorReply(reply.status, headers={
            "retry-after": email.utils.formatdate(time.time() + 60, usegmt=True)})
    events, error = await run_until_error(backend, fake_provider, reply)
    assert events == []
    assert type(error) is cls
    assert error.status == reply.status
    if retry_after is None or retry_after < 60:
        assert error.retry_after == retry_after
    else:  # an HTTP date: a minute from when it was made, in whole seconds
        assert error.retry_after is not None and 50 < error.retry_after <= 60
    body = fake_provider.requests[0]
    assert body.path in ("/chat/completions", "/v1/messages")
    message = str(error)
    assert "\n" not in message and f"HTTP {reply.status}" in message
    if reply.message:
        assert reply.message in message
    if cls is ContextTooLong:
        wording = "prompt is too long" if backend.wire == "anthropic" else "maximum context"
        assert wording in message


async def test_plain_text_error_body(backend: DirectBackend,
                                     fake_provider: FakeProvider) -> None:
    _, error = await run_until_error(backend, fake_provider,
                                     ErrorReply(502, body="<html>Bad gateway</html>"))
    assert type(error) is ProviderUnavailable and "Bad gateway" in str(error)


async def test_unreachable(backend: DirectBackend) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    request = ChatRequest(model="openai/x", messages=[Message.user("hi")],
                          api_base=f"http://127.0.0.1:{port}")
    with pytest.raises(ProviderUnavailable, match=f"cannot reach 127.0.0.1:{port}"):
        async for _ in backend.stream(request):
            pass


async def test_cut_stream(backend: DirectBackend, fake_provider: FakeProvider) -> None:
    events, error = await run_until_error(
        backend, fake_provider, Reply(text="abcdefghijkl", chunk_size=2, cut_after=3))
    assert type(error) is StreamCut
    assert text_of(events, TextDelta) == "abcdef"
    assert not any(isinstance(e, Finish) for e in events)


async def test_error_event_midway(backend: DirectBackend, fake_provider: FakeProvider) -> None:
    events, error = await run_until_error(
        backend, fake_provider, Reply(text="abcdefghijkl", chunk_size=2, error_after=2))
    assert type(error) is StreamCut
    assert "mid-stream" in str(error)
    wording = "Overloaded" if backend.wire == "anthropic" else "server had an error"
    assert wording in str(error)
    assert text_of(events, TextDelta) == "abcd"


async def test_stall(backend: DirectBackend, fake_provider: FakeProvider) -> None:
    events, error = await run_until_error(
        backend, fake_provider, Reply(text="abcdefgh", chunk_size=2, stall_after=2),
        stall_timeout=0.3)
    assert type(error) is StreamStalled and "stalled" in str(error)
    assert not error.retryable  # a stall is not waited out again
    assert text_of(events, TextDelta) == "abcd"
    await asyncio.to_thread(fake_provider.wait_for_disconnect, 1)


async def test_cancel_closes_connection(backend: DirectBackend,
                                        fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="x" * 4000, chunk_size=2, delay=0.01))
    first = asyncio.Event()
    seen: list[ProviderEvent] = []

    async def consume() -> None:
        async for e in backend.stream(chat(backend.wire, fake_provider)):
            seen.append(e)
            first.set()

    task = asyncio.create_task(consume())
    await first.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(fake_provider.wait_for_disconnect, 1)
    assert fake_provider.requests[0].disconnected
    assert 0 < len(seen) < 2000


# ---------------------------------------------------------------- what is sent

TOOLS = [ToolSpec("read_file", "Read a file.",
                  {"type": "object", "properties": {"path": {"type": "string"}}})]
CONVERSATION = [
    Message.user("list and read"),
    Message("assistant", [
        ThinkingBlock("I should look.", signature="sig-9"),
        TextBlock("Looking."),
        ToolUseBlock("call_1", "read_file", '{"path": "a.txt"}'),
        ToolUseBlock("call_2", "read_file", '{"path": "missing"}'),
    ]),
    Message("user", [
        ToolResultBlock("call_1", "read_file", "hello"),
        ToolResultBlock("call_2", "read_file", "no such file", is_error=True),
    ]),
]
EPHEMERAL = {"type": "ephemeral"}
EXPECTED_BODY = {
    "openai": {
        "model": "model-x", "stream": True, "stream_options": {"include_usage": True},
        "temperature": 0.2, "max_tokens": 1000,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "list and read"},
            {"role": "assistant", "content": "Looking.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "read_file", "arguments": '{"path": "missing"}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Read a file.",
            "parameters": TOOLS[0].parameters}}],
    },
    "anthropic": {
        "model": "model-x", "stream": True, "max_tokens": 1000, "temperature": 0.2,
        # Prompt caching: the system prompt, the last tool and the two latest user
        # messages end a cached prefix (four breakpoints, Anthropic's limit).
        "system": [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "list and read",
                                          "cache_control": EPHEMERAL}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "I should look.", "signature": "sig-9"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "call_1", "name": "read_file",
                 "input": {"path": "a.txt"}},
                {"type": "tool_use", "id": "call_2", "name": "read_file",
                 "input": {"path": "missing"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "hello"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "no such file",
                 "is_error": True, "cache_control": EPHEMERAL}]},
        ],
        "tools": [{"name": "read_file", "description": "Read a file.",
                   "input_schema": TOOLS[0].parameters, "cache_control": EPHEMERAL}],
    },
}


async def test_request_body(backend: DirectBackend, fake_provider: FakeProvider) -> None:
    await run(backend, fake_provider, Reply(text="ok"), messages=CONVERSATION,
              system="Be brief.", tools=TOOLS, temperature=0.2, max_tokens=1000,
              api_key="sk-test")
    sent = fake_provider.requests[0]
    assert sent.body == EXPECTED_BODY[backend.wire]
    assert sent.headers["accept"] == "text/event-stream"
    if backend.wire == "openai":
        assert sent.path == "/chat/completions"
        assert sent.headers["authorization"] == "Bearer sk-test"
    else:
        assert sent.path == "/v1/messages"
        assert sent.headers["x-api-key"] == "sk-test"
        assert sent.headers["anthropic-version"] == "2023-06-01"


async def test_api_base_with_v1_and_env_key(backend: DirectBackend, fake_provider: FakeProvider,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-anthropic")
    fake_provider.queue(Reply(text="ok"))
    request = ChatRequest(model=f"{backend.wire}/m", messages=[Message.user("hi")],
                          api_base=fake_provider.url + "/v1/")
    assert [e async for e in backend.stream(request)][-1] == Finish("stop")
    sent = fake_provider.requests[0]
    if backend.wire == "openai":
        assert (sent.path, sent.headers["authorization"]) == (
            "/v1/chat/completions", "Bearer env-openai")
    else:
        assert (sent.path, sent.headers["x-api-key"]) == ("/v1/messages", "env-anthropic")
    assert sent.body["model"] == "m"
    if backend.wire == "anthropic":
        assert sent.body["max_tokens"] == 8192  # required by Anthropic: a default is sent


async def test_custom_base_without_key(backend: DirectBackend, fake_provider: FakeProvider,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    events = await run(backend, fake_provider, Reply(text="ok"))
    assert events[-1] == Finish("stop")
    headers = fake_provider.requests[0].headers
    assert "authorization" not in headers and "x-api-key" not in headers


async def test_missing_key_for_the_real_host(backend: DirectBackend,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    env = "OPENAI_API_KEY" if backend.wire == "openai" else "ANTHROPIC_API_KEY"
    request = ChatRequest(model=f"{backend.wire}/m", messages=[Message.user("hi")])
    with pytest.raises(MissingApiKey, match=env):
        async for _ in backend.stream(request):
            pass
