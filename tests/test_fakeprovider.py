"""The scripted provider speaks the real wire formats (checked with httpx and litellm)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from tests.fakeprovider import ErrorReply, FakeProvider, Reply, ToolCall

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"


def sse(fp: FakeProvider, path: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, data) pairs of one streamed reply."""
    with httpx.Client(timeout=10) as client, connect_sse(
            client, "POST", fp.url + path, json=body) as source:
        assert source.response.status_code == 200
        return [(e.event, e.data) for e in source.iter_sse()]


def openai_chunks(events: list[tuple[str, str]]) -> list[dict[str, Any]]:
    assert events[-1] == ("message", "[DONE]")
    return [json.loads(d) for _, d in events[:-1]]


def test_openai_text_thinking_usage(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="Hello, world!", thinking="let me see", usage=(12, 7)))
    chunks = openai_chunks(sse(fake_provider, OPENAI, {
        "model": "gpt-x", "stream": True, "stream_options": {"include_usage": True}}))
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("content") or "" for d in deltas) == "Hello, world!"
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "let me see"
    assert all(len(d.get("content") or "") <= 8 for d in deltas)
    final = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert len(final) == 1 and final[0]["choices"][0]["delta"] == {}
    assert final[0]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {"prompt_tokens": 12, "completion_tokens": 7,
                                   "total_tokens": 19}
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "gpt-x"
               for c in chunks)


def test_openai_no_usage_chunk_unless_asked(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="hi", finish="length"))
    chunks = openai_chunks(sse(fake_provider, "/chat/completions", {"model": "m"}))
    assert all("usage" not in c for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_openai_parallel_tool_calls_interleave(fake_provider: FakeProvider) -> None:
    calls = [ToolCall("call_a", "read_file", '{"path": "a.txt"}'),
             ToolCall("call_b", "list_directory", '{"path": "some/dir"}')]
    fake_provider.queue(Reply(tool_calls=calls, interleave=True, chunk_size=4))
    chunks = openai_chunks(sse(fake_provider, OPENAI, {"model": "m"}))
    pieces = [tc for c in chunks for tc in c["choices"][0]["delta"].get("tool_calls", [])]
    args: dict[int, str] = {}
    firsts: dict[int, dict[str, Any]] = {}
    for p in pieces:
        if p["index"] not in firsts:
            firsts[p["index"]] = p
        args[p["index"]] = args.get(p["index"], "") + p["function"]["arguments"]
    assert args == {0: calls[0].arguments, 1: calls[1].arguments}
    for i, call in enumerate(calls):
        assert firsts[i] == {"index": i, "id": call.id, "type": "function",
                             "function": {"name": call.name, "arguments": ""}}
    order = [p["index"] for p in pieces if "id" not in p]
    assert order[:4] == [0, 1, 0, 1]  # fragments really interleave
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_anthropic_stream(fake_provider: FakeProvider) -> None:
    call = ToolCall("toolu_1", "run_command", '{"command": "ls -la"}')
    fake_provider.queue(Reply(text="Sure.", thinking="think", signature="sig-x",
                              tool_calls=[call], usage=(30, 9), cache_read=4, chunk_size=3))
    events = sse(fake_provider, ANTHROPIC, {"model": "claude-x"})
    kinds = [e for e, _ in events]
    data = [json.loads(d) for _, d in events]
    assert all(e == d["type"] for e, d in zip(kinds, data, strict=True))
    assert kinds[:2] == ["message_start", "ping"] and kinds[-2:] == ["message_delta",
                                                                      "message_stop"]
    assert data[0]["message"]["usage"]["input_tokens"] == 26  # the 4 cached are apart
    assert data[0]["message"]["usage"]["cache_read_input_tokens"] == 4
    starts = [d["content_block"] for d in data if d["type"] == "content_block_start"]
    assert [b["type"] for b in starts] == ["thinking", "text", "tool_use"]
    assert starts[2] == {"type": "tool_use", "id": "toolu_1", "name": "run_command",
                         "input": {}}
    text: dict[str, str] = {}
    for d in data:
        if d["type"] == "content_block_delta":
            delta = dict(d["delta"])
            kind = delta.pop("type")
            text[kind] = text.get(kind, "") + next(iter(delta.values()))
    assert text == {"thinking_delta": "think", "signature_delta": "sig-x",
                    "text_delta": "Sure.", "input_json_delta": call.arguments}
    assert kinds.count("content_block_stop") == 3
    assert data[-2]["delta"]["stop_reason"] == "tool_use"
    assert data[-2]["usage"] == {"output_tokens": 9}


@pytest.mark.parametrize(("path", "shape"), [(OPENAI, "openai"), (ANTHROPIC, "anthropic")])
def test_error_replies(fake_provider: FakeProvider, path: str, shape: str) -> None:
    fake_provider.queue(ErrorReply(429, headers={"retry-after": "3"}),
                        ErrorReply.context_exceeded(),
                        ErrorReply(503, body="upstream down"))
    with httpx.Client() as client:
        r1, r2, r3 = (client.post(fake_provider.url + path, json={}) for _ in range(3))
    assert r1.status_code == 429 and r1.headers["retry-after"] == "3"
    assert r2.status_code == 400
    if shape == "openai":
        assert r1.json()["error"]["code"] == "rate_limit_exceeded"
        assert r2.json()["error"]["code"] == "context_length_exceeded"
        assert "maximum context length" in r2.json()["error"]["message"]
    else:
        assert r1.json() == {"type": "error", "error": {
            "type": "rate_limit_error", "message": r1.json()["error"]["message"]}}
        assert r2.json()["error"]["message"].startswith("prompt is too long")
    assert (r3.status_code, r3.text) == (503, "upstream down")


@pytest.mark.parametrize("path", [OPENAI, ANTHROPIC])
def test_cut_stream_content(fake_provider: FakeProvider, path: str) -> None:
    fake_provider.queue(Reply(text="abcdefghijklmnop", chunk_size=2, cut_after=3))
    body = b""
    with httpx.Client() as client, client.stream(
            "POST", fake_provider.url + path, json={}) as r, pytest.raises(
            httpx.RemoteProtocolError):
        for part in r.iter_bytes():
            body += part
    assert b'"ab"' in body and b'"ef"' in body and b'"gh"' not in body
    assert b"[DONE]" not in body and b"message_stop" not in body
    with httpx.Client() as client:  # the queue is empty now: the next one is unscripted
        assert client.post(fake_provider.url + path, json={}).status_code == 500


def test_stall_then_client_gives_up(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="abcdef", chunk_size=2, stall_after=1, stall_seconds=30))
    with httpx.Client(timeout=httpx.Timeout(5, read=0.3)) as client, client.stream(
            "POST", fake_provider.url + OPENAI, json={}) as r, pytest.raises(
            httpx.ReadTimeout):
        for _ in r.iter_bytes():
            pass
    fake_provider.wait_for_disconnect(1)  # the server noticed the close during the stall
    assert fake_provider.requests[0].disconnected


def test_mid_stream_error_event(fake_provider: FakeProvider) -> None:
    with httpx.Client() as client:
        fake_provider.queue(Reply(text="abcdef", chunk_size=2, error_after=1))
        with client.stream("POST", fake_provider.url + ANTHROPIC, json={}) as r:
            body = b""
            with pytest.raises(httpx.RemoteProtocolError):
                for part in r.iter_bytes():
                    body += part
    assert b"event: error" in body and b"overloaded_error" in body


def test_records_requests_and_unscripted(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="ok"))
    with httpx.Client() as client:
        client.post(fake_provider.url + ANTHROPIC, json={"model": "c", "max_tokens": 5},
                    headers={"x-api-key": "secret"}).read()
        unscripted = client.post(fake_provider.url + OPENAI, json={"model": "m"})
    fake_provider.wait_for_requests(2)
    first, second = fake_provider.requests
    assert (first.path, first.body) == (ANTHROPIC, {"model": "c", "max_tokens": 5})
    assert first.headers["x-api-key"] == "secret"
    assert (second.path, second.body) == (OPENAI, {"model": "m"})
    assert unscripted.status_code == 500
    assert "no scripted reply" in unscripted.text


def test_standalone_process(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [
        {"error": {"status": 429, "headers": {"retry-after": "1"}}},
        {"text": "x" * 8000, "chunk_size": 4, "usage": [3, 4]},
    ], "repeat_last": True}))
    here = Path(__file__).parent / "fakeprovider.py"
    proc = subprocess.Popen([sys.executable, str(here), "--port", "0", "--script",
                             str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("READY http://127.0.0.1:")
        url = line.split()[1]
        assert httpx.post(url + OPENAI, json={}).status_code == 429
        for _ in range(2):  # served again and again
            fp = FakeProvider()
            fp.url = url
            chunks = openai_chunks(sse(fp, OPENAI, {"stream_options": {"include_usage": 1}}))
            text = "".join(c["choices"][0]["delta"].get("content") or ""
                           for c in chunks if c["choices"])
            assert text == "x" * 8000 and chunks[-1]["usage"]["completion_tokens"] == 4
    finally:
        proc.terminate()
        proc.wait(10)


# ---------------------------------------------------------------- through litellm


@pytest.fixture(scope="module")
def litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    import litellm as lib

    lib.suppress_debug_info = True
    return lib


TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]


async def collect(litellm: Any, model: str, url: str) -> dict[str, Any]:
    stream = await litellm.acompletion(
        model=model, api_base=url, api_key="k", stream=True,
        stream_options={"include_usage": True}, num_retries=0, max_retries=0,
        messages=[{"role": "user", "content": "hi"}], tools=TOOLS, _skip_mcp_handler=True)
    out: dict[str, Any] = {"text": "", "reasoning": "", "args": {}, "ids": {}, "finish": None}
    async for chunk in stream:
        if getattr(chunk, "usage", None):
            out["usage"] = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        out["text"] += delta.content or ""
        out["reasoning"] += getattr(delta, "reasoning_content", None) or ""
        for tc in delta.tool_calls or []:
            if tc.id:
                out["ids"][tc.index] = (tc.id, tc.function.name)
            out["args"][tc.index] = out["args"].get(tc.index, "") + (
                tc.function.arguments or "")
        out["finish"] = choice.finish_reason or out["finish"]
    return out


@pytest.mark.parametrize("model", ["openai/x", "anthropic/claude-x"])
async def test_litellm_parses_it(fake_provider: FakeProvider, litellm: Any,
                                 model: str) -> None:
    calls = [ToolCall("call_1", "read_file", '{"path": "a.py"}'),
             ToolCall("call_2", "read_file", '{"path": "b/c.py"}')]
    fake_provider.queue(Reply(text="Reading both.", thinking="two files", tool_calls=calls,
                              interleave=True, chunk_size=5, usage=(21, 13)))
    out = await collect(litellm, model, fake_provider.url)
    assert out["text"] == "Reading both."
    assert out["reasoning"] == "two files"
    assert out["ids"] == {0: ("call_1", "read_file"), 1: ("call_2", "read_file")}
    assert out["args"] == {0: calls[0].arguments, 1: calls[1].arguments}
    assert out["finish"] == "tool_calls"
    assert out["usage"] == (21, 13)
    path = fake_provider.requests[0].path
    assert path == ("/chat/completions" if model.startswith("openai") else "/v1/messages")
