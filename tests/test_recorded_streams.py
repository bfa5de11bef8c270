"""Recorded-shape provider streams (tests/streams/*.sse, *.ndjson) replayed through the
real HTTP path of both backends.

Each file is a response body in one provider's documented wire shape (ids,
extra fields, comments, list-typed content, error events and all); the
loopback provider replays it byte for byte, cut into several network writes.
Both backends must agree on what the user and the next request get, except
where litellm itself loses something (listed per case, with the reason).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from swebash_py.engine.messages import Message
from swebash_py.errors import ProviderError, StreamCut
from swebash_py.events import (
    Finish,
    ProviderEvent,
    RedactedThinking,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallReady,
)
from swebash_py.provider.base import Backend, ChatRequest, ToolSpec
from swebash_py.provider.direct import DirectBackend
from swebash_py.provider.litellm_backend import LiteLLMBackend
from tests.fakeprovider import FakeProvider, RawReply

STREAMS = Path(__file__).parent / "streams"
TOOLS = [ToolSpec("peek", "Look.", {"type": "object", "properties": {"label": {"type": "string"}}})]
REDACTED = ("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2Y"
            "fWXGmKDxH4mPnZ5sQ7vB4URj/MsyJkZlSKwtNoy7dKKhSI0jA5TgiMjq4BbaUnsxAZAQVa7j8=")


@dataclass
class Case:
    """One recorded stream: which wire the direct backend speaks (None: litellm
    only), the litellm model string, and what both must yield."""

    wire: str | None
    litellm_model: str
    expect: dict[str, Any]
    litellm_differs: dict[str, Any] = field(default_factory=dict)  # litellm's own losses
    error: str | None = None  # a ProviderError whose message holds this


def _want(text: str = "", thinking: str = "", signatures: list[str] | None = None,
          redacted: list[str] | None = None, calls: list[tuple[str, str, str]] | None = None,
          finish: tuple[str, str] = ("stop", "")) -> dict[str, Any]:
    return {"text": text, "thinking": thinking, "signatures": signatures or [],
            "redacted": redacted or [], "calls": calls or [], "finish": finish}


CASES: dict[str, Case] = {
    "openai_tools": Case("openai", "openai/gpt-4o-mini", _want(
        text="Let me look.", finish=("tool_calls", ""),
        calls=[("call_Hq3OWo2vHTaFyylWxRPCvQ0b", "peek", '{"label": "a"}'),
               ("call_6eHb2qGLTnQXWrbNc2E4Jq7K", "peek", '{"label": "b"}')])),
    # litellm 1.106.2 drops refusal deltas; provider/sse_canonical.py carries them through.
    "openai_refusal": Case("openai", "openai/gpt-4o", _want(
        text="I'm sorry, I can't help with that.", finish=("refusal", ""))),
    "azure_content_filter": Case("openai", "openai/gpt-4o", _want(
        text="Here is how", finish=("content_filter", ""))),
    "anthropic_thinking_tools": Case("anthropic", "anthropic/claude-sonnet-4-5", _want(
        thinking="The user wants the port. I should look at both.", text="Let me look.",
        signatures=["ErUBCkYIBhgCIkCYt8bqV0Tt3W2mE3p5rG9nXwQ0a1L=="], finish=("tool_calls", ""),
        calls=[("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "peek", '{"label": "a"}'),
               ("toolu_01E6cVqGzLnqs7n1yZ2iHJfm", "peek", '{"label": "b"}')])),
    "anthropic_redacted_thinking": Case("anthropic", "anthropic/claude-3-7-sonnet-20250219", _want(
        thinking="Check the file.", redacted=[REDACTED], finish=("tool_calls", ""),
        signatures=["EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds=="],
        calls=[("toolu_01Qx4wVbQZ8bJ2cK1tq5mFhS", "peek", '{"label": "c"}')])),
    # litellm maps Anthropic's "refusal" onto "content_filter" before we see it.
    "anthropic_refusal": Case("anthropic", "anthropic/claude-sonnet-4-5", _want(
        text="Here is a general", finish=("refusal", "")),
        litellm_differs={"finish": ("content_filter", "")}),
    "deepseek_reasoner": Case("openai", "deepseek/deepseek-reasoner", _want(
        thinking="Okay, 9.11 versus 9.8.", text="9.8 is larger.")),
    "openrouter_reasoning": Case("openai", "openrouter/anthropic/claude-3.7-sonnet:thinking",
                                 _want(thinking="Two plus two is four.", text="The answer is 4.")),
    # litellm 1.106.2 fails on the string "code" with ValueError; the words are on
    # the exception it was handling (provider/litellm_errors.py).
    "groq_error_midstream": Case("openai", "groq/llama-3.3-70b-versatile", {},
                                 error="Service Unavailable"),
    "mistral_magistral": Case("openai", "mistral/magistral-medium-latest", _want(
        thinking="Dividing 10 by 2 is 5.", text="It is 5.")),
    "ollama_openai_tools": Case("openai", "openai/qwen3:8b", _want(
        thinking="Need to peek.", finish=("tool_calls", ""),
        calls=[("call_w3bqk1yv", "peek", '{"label":"o"}')])),
    "gemini_compat_malformed": Case("openai", "openai/gemini-2.5-flash", _want(
        finish=("malformed_tool_call", "MALFORMED_FUNCTION_CALL"))),
    # Gemini's OpenAI-compatible endpoint says "content_filter" for a SAFETY stop.
    "gemini_compat_content_filter": Case("openai", "openai/gemini-2.5-flash", _want(
        text="Mixing those two", finish=("content_filter", ""))),
    # Native Gemini goes through litellm only, which maps MALFORMED_FUNCTION_CALL
    # to "stop": the agent reports the empty answer (test_agent_turns below).
    "gemini_native_malformed": Case(None, "gemini/gemini-2.5-flash", _want()),
    "gemini_native_safety": Case(None, "gemini/gemini-2.5-flash", _want(
        text="Mixing those two", finish=("content_filter", ""))),
    # Ollama's own /api/chat (NDJSON; litellm only): tool arguments arrive as an
    # object, and the call id is made up by litellm.
    "ollama_native_chat": Case(None, "ollama_chat/qwen3:8b", _want(
        thinking="Need to peek.", text="Looking", finish=("tool_calls", ""),
        calls=[("*", "peek", '{"label": "o"}')])),
}


def recording(name: str) -> RawReply:
    """The recorded body of ``name``, with the content type its format has."""
    path = next(STREAMS.glob(f"{name}.*"))
    kind = "application/x-ndjson" if path.suffix == ".ndjson" else "text/event-stream"
    return RawReply(path.read_text(), content_type=kind)


def summary(events: list[ProviderEvent]) -> dict[str, Any]:
    finishes = [(e.reason, e.raw) for e in events if isinstance(e, Finish)]
    assert len(finishes) == 1 and isinstance(events[-1], Finish), events
    return {
        "text": "".join(e.text for e in events if isinstance(e, TextDelta)),
        "thinking": "".join(e.text for e in events if isinstance(e, ThinkingDelta)),
        "signatures": [e.signature for e in events if isinstance(e, ThinkingSignature)],
        "redacted": [e.data for e in events if isinstance(e, RedactedThinking)],
        "calls": [(e.id, e.name, e.arguments) for e in events if isinstance(e, ToolCallReady)],
        "finish": finishes[0],
    }


def backend_and_model(name: str, case: Case) -> tuple[Backend, str]:
    if name == "litellm":
        return LiteLLMBackend(), case.litellm_model
    assert case.wire is not None
    model = case.litellm_model if case.wire == "anthropic" else case.litellm_model.split("/")[-1]
    return DirectBackend(case.wire), model  # type: ignore[arg-type]


PARAMS = [pytest.param(name, backend, id=f"{name}-{backend}") for name, case in CASES.items()
          for backend in ("direct", "litellm") if backend == "litellm" or case.wire]


def test_every_recording_is_well_formed_sse() -> None:
    """The fixtures themselves: every data line is JSON (or [DONE]), events end blank."""
    assert sorted(p.stem for p in STREAMS.iterdir()) == sorted(CASES)
    for path in STREAMS.glob("*.sse"):
        body = path.read_text()
        assert body.endswith("\n\n"), path.name
        for line in body.splitlines():
            if line.startswith("data:") and line[5:].strip() != "[DONE]":
                json.loads(line[5:])
    for path in STREAMS.glob("*.ndjson"):
        assert all(json.loads(line) for line in path.read_text().splitlines())


@pytest.mark.parametrize(("name", "backend"), PARAMS)
async def test_replay(fake_provider: FakeProvider, name: str, backend: str) -> None:
    case = CASES[name]
    stream_backend, model = backend_and_model(backend, case)
    fake_provider.queue(recording(name))
    request = ChatRequest(model=model, messages=[Message.user("hi")], api_base=fake_provider.url,
                          api_key="test-key", tools=TOOLS, max_tokens=256, stall_timeout=5)
    if case.error is not None:
        with pytest.raises(ProviderError) as info:
            _ = [e async for e in stream_backend.stream(request)]
        assert isinstance(info.value, StreamCut)
        assert case.error in str(info.value)
        return
    got = summary([e async for e in stream_backend.stream(request)])
    if any(call[0] == "*" for call in case.expect["calls"]):  # an id made up downstream
        got["calls"] = [("*", tool, args) for _id, tool, args in got["calls"]]
    want = dict(case.expect)
    if backend == "litellm":
        want.update(case.litellm_differs)
    assert got == want


# ---------------------------------------------------------------- through the agent


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent sends no key of its own: the providers' variables hold one."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "test-key")


def agent_for(fp: FakeProvider, backend: str, model: str) -> Any:
    from swebash_py.agent.loop import Agent, AgentOptions
    from swebash_py.provider.client import ProviderClient
    from swebash_py.provider.retry import RetryPolicy
    from swebash_py.tools.base import ToolContext
    from tests.agent.scripted_tools import Journal, all_tools

    client = ProviderClient(backend, policy=RetryPolicy(max_retries=0))
    options = AgentOptions(model=model, api_base=fp.url, system="test system")
    return Agent(options, client.stream, all_tools(Journal()), ToolContext(workspace=Path.cwd()))


@pytest.mark.parametrize("backend", ["direct", "litellm"])
async def test_redacted_thinking_is_sent_back_in_place(fake_provider: FakeProvider,
                                                       backend: str) -> None:
    """A thinking+tools turn stays valid: the encrypted block goes back with the
    next request, unchanged and in its place before the signed thinking."""
    fake_provider.queue(RawReply((STREAMS / "anthropic_redacted_thinking.sse").read_text()),
                        RawReply((STREAMS / "anthropic_refusal.sse").read_text()
                                 .replace('"refusal"', '"end_turn"')))
    agent = agent_for(fake_provider, backend, "anthropic/claude-3-7-sonnet-20250219")
    _ = [e async for e in agent.run_turn("check")]
    assistant = fake_provider.requests[1].body["messages"][1]
    assert assistant["role"] == "assistant"
    kinds = [(b["type"], b.get("data") or b.get("signature") or b.get("id")) for b in
             assistant["content"]]
    assert kinds == [("redacted_thinking", REDACTED),
                     ("thinking", "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds=="),
                     ("tool_use", "toolu_01Qx4wVbQZ8bJ2cK1tq5mFhS")]


FINISH_LINES = [
    ("openai_refusal", "openai/gpt-4o", "declined to answer", "refusal"),
    ("anthropic_refusal", "anthropic/claude-sonnet-4-5", "declined to answer", "refusal"),
    ("azure_content_filter", "openai/gpt-4o", "content filter", "content_filter"),
    ("gemini_compat_malformed", "openai/gemini-2.5-flash", "MALFORMED_FUNCTION_CALL", "error"),
    ("gemini_compat_content_filter", "openai/gemini-2.5-flash", "content filter",
     "content_filter"),
]


@pytest.mark.parametrize("backend", ["direct", "litellm"])
@pytest.mark.parametrize(("name", "model", "words", "stop"), FINISH_LINES,
                         ids=[c[0] for c in FINISH_LINES])
async def test_finish_reasons_reach_the_user(fake_provider: FakeProvider, backend: str,
                                            name: str, model: str, words: str,
                                            stop: str) -> None:
    from swebash_py.events import ErrorEvent, TurnComplete

    fake_provider.queue(recording(name))
    events = [e async for e in agent_for(fake_provider, backend, model).run_turn("hi")]
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    if backend == "litellm" and name == "anthropic_refusal":  # litellm says content_filter
        words, stop = "content filter", "content_filter"
    assert len(errors) == 1 and words in errors[0], errors
    complete = events[-1]
    assert isinstance(complete, TurnComplete) and complete.stop_reason == stop


async def test_an_empty_answer_is_reported(fake_provider: FakeProvider) -> None:
    """Native Gemini's MALFORMED_FUNCTION_CALL reaches us from litellm as a bare
    "stop" with nothing in it: the user hears that the answer was empty."""
    from swebash_py.events import ErrorEvent, TurnComplete

    fake_provider.queue(RawReply((STREAMS / "gemini_native_malformed.sse").read_text()))
    events = [e async for e in agent_for(fake_provider, "litellm",
                                         "gemini/gemini-2.5-flash").run_turn("hi")]
    assert [e.message for e in events if isinstance(e, ErrorEvent)] == [
        "the model returned an empty answer"]
    assert isinstance(events[-1], TurnComplete) and events[-1].stop_reason == "error"


def test_an_empty_refusal_field_on_an_answer_is_not_a_refusal() -> None:
    """Some OpenAI-compatible servers send ``"refusal": ""`` with every answer;
    only refusal words, or an opened refusal with no answer, count."""
    from swebash_py.provider.openai_wire import OpenAIParser

    def finish(*deltas: dict[str, Any]) -> Finish:
        parser = OpenAIParser()
        for delta in deltas:
            parser.feed_chunk({"choices": [{"index": 0, "delta": delta}]})
        parser.feed_chunk({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        last = parser.end()[-1]
        assert isinstance(last, Finish)
        return last

    assert finish({"content": "", "refusal": ""}, {"content": "Sure."}).reason == "stop"
    assert finish({"refusal": ""}).reason == "refusal"
    assert finish({"refusal": "No."}).reason == "refusal"


def test_a_stored_redacted_block_survives_resume() -> None:
    """The session store keeps the encrypted data, so `ai -c` sends it back too."""
    from swebash_py.engine.messages import ThinkingBlock
    from swebash_py.store.records import block_to_row, parse_json, row_to_block

    kind, text, meta = block_to_row(ThinkingBlock("", redacted_data=REDACTED))
    back = row_to_block(kind, text, parse_json(meta))
    assert isinstance(back, ThinkingBlock) and back.redacted_data == REDACTED


def test_the_standalone_server_replays_a_recording(tmp_path: Path) -> None:
    """`python tests/fakeprovider.py --script` takes {"raw": FILE} (for tmux runs)."""
    import subprocess
    import sys

    import httpx

    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"raw": str(STREAMS / "openai_refusal.sse")}]))
    server = subprocess.Popen([sys.executable, str(Path(__file__).parent / "fakeprovider.py"),
                               "--script", str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[1]
        body = httpx.post(url + "/anything", json={}, timeout=10).text
        assert body == (STREAMS / "openai_refusal.sse").read_text()
    finally:
        server.terminate()
        server.wait(10)
