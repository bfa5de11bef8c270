"""The litellm path reads event streams through our reader first
(``provider/sse_canonical.py``): bodies litellm's own readers lose or fail on
answer in full, over real HTTP from the scripted provider; plain bodies come
through unchanged; what is not an event stream is not touched."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from swebash_py.engine.messages import Message
from swebash_py.events import Finish, TextDelta
from swebash_py.provider import sse_canonical
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.litellm_backend import LiteLLMBackend, load
from swebash_py.provider.sse import Event
from tests.fakeprovider import FakeProvider, RawReply

STREAMS = Path(__file__).parent.parent / "streams"
BOM = "\ufeff"


def openai_answer() -> str:
    """A recorded OpenAI-compatible body from the event with the answer's first words."""
    body = (STREAMS / "openrouter_reasoning.sse").read_text()
    return body[body.rindex("data: ", 0, body.index('"The answer"')):]


def anthropic_answer() -> str:
    return (STREAMS / "anthropic_refusal.sse").read_text().replace('"refusal"', '"end_turn"')


OPENAI = ("openai/x", "The answer is 4.")
ANTHROPIC = ("anthropic/claude-x", "Here is a general")

# name: (model and answer, the body). Without our reader, litellm 1.106.2 fails on or loses
# words of the openai BOM, retry-only, id-only and invalid-UTF-8 bodies and the Anthropic
# U+2028 one; the other three it reads itself, and must go on reading through ours.
ODD_BODIES: dict[str, tuple[tuple[str, str], str | bytes]] = {
    "openai-bom-first-event": (OPENAI, BOM + openai_answer()),
    "openai-retry-only-block": (OPENAI, "retry: 3000\n\n" + openai_answer()),
    "openai-id-only-block": (OPENAI, "id: 1\n\n" + openai_answer()),
    "openai-id-then-blank": (OPENAI, openai_answer().replace("\n\n", "\nid: 9\n\n")),
    "openai-invalid-utf8": ((OPENAI[0], "The\ufffdanswer is 4."),
                            openai_answer().replace("The answer", "The@answer").encode()
                            .replace(b"@", b"\xff")),
    "anthropic-u2028-in-json": ((ANTHROPIC[0], "Here\u2028is a general"),
                                anthropic_answer().replace("Here is", "Here\u2028is")),
    "anthropic-invalid-utf8": ((ANTHROPIC[0], "Here\ufffdis a general"),
                               anthropic_answer().replace("Here is", "Here@is").encode()
                               .replace(b"@", b"\xc3")),
    "anthropic-bom-retry-id": (ANTHROPIC, BOM + "retry: 10\n\n" + anthropic_answer()
                               .replace("\n\n", "\nid: 3\n\n")),
}
PLAIN_BODIES = {"openai": (OPENAI, openai_answer()), "anthropic": (ANTHROPIC, anthropic_answer())}


async def answer(fp: FakeProvider, model: str, body: str | bytes) -> tuple[str, Finish]:
    fp.queue(RawReply(body))
    request = ChatRequest(model=model, messages=[Message.user("hi")], api_base=fp.url,
                          api_key="test-key", max_tokens=64, stall_timeout=5)
    events = [e async for e in LiteLLMBackend().stream(request)]
    finish = events[-1]
    assert isinstance(finish, Finish)
    return "".join(e.text for e in events if isinstance(e, TextDelta)), finish


@pytest.mark.parametrize("name", list(ODD_BODIES))
async def test_an_odd_body_answers_in_full(fake_provider: FakeProvider, name: str) -> None:
    (model, words), body = ODD_BODIES[name]
    text, finish = await answer(fake_provider, model, body)
    assert (text, finish.reason) == (words, "stop")


@pytest.mark.parametrize("name", list(PLAIN_BODIES))
async def test_twin_a_plain_body_is_read_as_before(fake_provider: FakeProvider,
                                                   name: str) -> None:
    (model, words), body = PLAIN_BODIES[name]
    assert await answer(fake_provider, model, body) == (words, Finish("stop"))


async def test_the_refusal_words_reach_us(fake_provider: FakeProvider) -> None:
    body = (STREAMS / "openai_refusal.sse").read_text()
    text, finish = await answer(fake_provider, "openai/gpt-4o", body)
    assert (text, finish.reason) == ("I'm sorry, I can't help with that.", "refusal")


def test_serialize_keeps_type_and_lines() -> None:
    assert (sse_canonical.serialize(Event("delta", "a\nb", "7"))
            == b"event: delta\ndata: a\ndata: b\n\n")
    assert sse_canonical.serialize(Event("message", "")) == b"data: \n\n"


def test_line_splitters_in_json_are_escaped_to_the_same_json() -> None:
    data = json.dumps({"t": "a\u2028b\u2029c\x85d"}, ensure_ascii=False)
    out = sse_canonical.serialize(Event("message", data)).decode()
    assert len(out.splitlines()) == 2  # one data line, the blank line
    assert json.loads(out[len("data: "):]) == json.loads(data)


def test_twin_text_data_keeps_its_characters() -> None:
    assert sse_canonical.serialize(Event("message", "a\u2028b")) == "data: a\u2028b\n\n".encode()


def test_only_refusal_words_get_a_carrier() -> None:
    def carried(delta: dict[str, object]) -> dict[str, object]:
        data = json.dumps({"choices": [{"index": 0, "delta": delta}]})
        out = sse_canonical.serialize(Event("message", data)).decode()
        return json.loads(out[len("data: "):])["choices"][0]["delta"]  # type: ignore[no-any-return]

    assert carried({"refusal": "No."}) == {"refusal": "No.", "reasoning_content": ""}
    assert carried({"refusal": ""}) == {"refusal": ""}
    assert carried({"content": "Sure.", "refusal": None}) == {"content": "Sure.", "refusal": None}


@pytest.mark.parametrize("kind", ["application/x-ndjson", "application/json"])
async def test_a_body_that_is_not_an_event_stream_is_not_touched(fake_provider: FakeProvider,
                                                                kind: str) -> None:
    body = BOM + 'retry: 1\n\n{"error": {"message": "a\u2028b"}}\n'
    fake_provider.queue(RawReply(body, content_type=kind))
    transport = sse_canonical.CanonicalTransport(httpx.AsyncHTTPTransport())
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.post(fake_provider.url + "/chat/completions", json={})
    assert response.content == body.encode()


async def test_an_error_body_sent_as_an_event_stream_is_not_touched(
        fake_provider: FakeProvider) -> None:
    body = '{"error": {"message": "model overloaded"}}'
    fake_provider.queue(RawReply(body, status=503))
    transport = sse_canonical.CanonicalTransport(httpx.AsyncHTTPTransport())
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.post(fake_provider.url + "/chat/completions", json={})
    assert (response.status_code, response.text) == (503, body)


async def test_twin_an_event_stream_is_rewritten(fake_provider: FakeProvider) -> None:
    fake_provider.queue(RawReply(BOM + "retry: 1\n\n: hi\nevent: e\ndata: 1\nid: 2\n\n"))
    transport = sse_canonical.CanonicalTransport(httpx.AsyncHTTPTransport())
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.post(fake_provider.url + "/chat/completions", json={})
    assert response.content == b"event: e\ndata: 1\n\n"


def test_installed_once_around_litellm_transports_but_not_httpx_ones() -> None:
    load()
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler

    installed = AsyncHTTPHandler.create_async_transport
    sse_canonical.install(AsyncHTTPHandler)
    assert AsyncHTTPHandler.create_async_transport is installed  # not wrapped twice
    assert isinstance(AsyncHTTPHandler.create_async_transport(),
                      sse_canonical.CanonicalTransport)

    class Handler:
        create_async_transport = staticmethod(lambda: httpx.AsyncHTTPTransport())

    sse_canonical.install(Handler)
    assert isinstance(Handler.create_async_transport(), httpx.AsyncHTTPTransport)


@pytest.mark.parametrize("model", ["openai/x", "anthropic/claude-x"])
async def test_cancel_still_closes_the_connection(fake_provider: FakeProvider,
                                                  model: str) -> None:
    """Through our reader too, cancelling the task reading a litellm stream closes
    the HTTP connection (LITELLM.md: how a turn is stopped)."""
    import asyncio

    from tests.fakeprovider import Reply

    fake_provider.queue(Reply(text="x" * 4000, chunk_size=2, delay=0.01))
    request = ChatRequest(model=model, messages=[Message.user("hi")], api_base=fake_provider.url,
                          api_key="test-key", max_tokens=64, stall_timeout=5)
    first = asyncio.Event()
    seen: list[object] = []

    async def consume() -> None:
        async for event in LiteLLMBackend().stream(request):
            seen.append(event)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(fake_provider.wait_for_disconnect, 1)
    assert fake_provider.requests[0].disconnected
    assert 0 < len(seen) < 2000
