"""Anthropic prompt caching: where cache_control goes (never more than four
breakpoints), on the direct path and through litellm; cache usage is parsed."""

from __future__ import annotations

import json
from pathlib import Path

from swebash_py.engine.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from swebash_py.provider import anthropic_wire, caching, litellm_backend, openai_wire
from swebash_py.provider.base import ChatRequest, ToolSpec
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall

TOOLS = [ToolSpec(f"t{i}", "A tool.", {"type": "object", "properties": {}}) for i in range(3)]


def _tool_loop(rounds: int) -> list[Message]:
    """A user question, then ``rounds`` of tool call + result."""
    messages = [Message.user("do it")]
    for i in range(rounds):
        messages.append(Message("assistant", [ToolUseBlock(f"c{i}", "t0", "{}")]))
        messages.append(Message("user", [ToolResultBlock(f"c{i}", "t0", f"out {i}")]))
    return messages


def test_direct_body_marks_system_tools_and_two_latest_user_messages() -> None:
    messages = _tool_loop(5)
    body = anthropic_wire.build_request(ChatRequest("anthropic/x", messages, system="Sys.",
                                                    tools=TOOLS), "x")
    assert body["system"] == [{"type": "text", "text": "Sys.",
                               "cache_control": caching.EPHEMERAL}]
    assert [("cache_control" in t) for t in body["tools"]] == [False, False, True]
    marked = [i for i, m in enumerate(body["messages"])
              if any("cache_control" in b for b in m["content"])]
    assert marked == [len(messages) - 3, len(messages) - 1]
    assert caching.count_breakpoints(body) == caching.MAX_BREAKPOINTS


def test_never_more_than_four_breakpoints() -> None:
    for rounds in range(0, 12):
        for system, tools in (("S", TOOLS), (None, TOOLS), ("S", None), (None, None)):
            body = anthropic_wire.build_request(
                ChatRequest("anthropic/x", _tool_loop(rounds), system=system, tools=tools), "x")
            assert caching.count_breakpoints(body) <= caching.MAX_BREAKPOINTS


def test_openai_bodies_get_no_cache_control() -> None:
    request = ChatRequest("openai/x", _tool_loop(2), system="S", tools=TOOLS)
    assert caching.count_breakpoints(openai_wire.build_request(request, "x")) == 0
    assert caching.count_breakpoints(litellm_backend.build_messages(request)) == 0


def test_litellm_messages_for_claude_are_marked_in_openai_shape() -> None:
    messages = [*_tool_loop(1), Message("assistant", [TextBlock("done")]),
                Message.user("thanks")]
    request = ChatRequest("anthropic/claude-x", messages, system="S")
    built = litellm_backend.build_messages(request)
    assert built[0]["content"] == [{"type": "text", "text": "S",
                                    "cache_control": caching.EPHEMERAL}]
    tool_message = next(m for m in built if m["role"] == "tool")
    assert tool_message["cache_control"] == caching.EPHEMERAL
    assert built[-1]["content"] == [{"type": "text", "text": "thanks",
                                     "cache_control": caching.EPHEMERAL}]
    assert caching.count_breakpoints(built) == 3


def test_litellm_sends_cache_control_to_anthropic_and_reads_cache_usage(
        fake_provider: FakeProvider, isolated: Path) -> None:
    """Through litellm's real HTTP path: the /v1/messages body has the marks, and the
    cache reads and writes come back in the usage event."""
    (isolated / "config.toml").write_text('backend = "litellm"\napproval = "yolo"\n')
    fake_provider.queue(
        Reply(tool_calls=[ToolCall("toolu_1", "list_directory", '{"path": "."}')],
              usage=(4000, 10), cache_write=3500),
        Reply(text="Done.", usage=(4100, 5), cache_read=3500))
    result = run_ai("-m", "anthropic/claude-x", "--api-base", fake_provider.url, "--json",
                    "list it", env={"ANTHROPIC_API_KEY": "sk-ant-test-1234"})
    assert result.returncode == 0, result.stderr
    for request in fake_provider.requests:
        body = request.body
        assert request.path == "/v1/messages"
        assert body["system"][-1]["cache_control"] == caching.EPHEMERAL
        assert body["tools"][-1]["cache_control"] == caching.EPHEMERAL
        assert "cache_control" in body["messages"][-1]["content"][-1]
        assert caching.count_breakpoints(body) <= caching.MAX_BREAKPOINTS
    usage = [e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "usage"]
    assert [(u["input_tokens"], u["cache_read_tokens"], u["cache_write_tokens"])
            for u in usage] == [(4000, 0, 3500), (4100, 3500, 0)]


def test_openai_automatic_caching_is_read_from_usage() -> None:
    parser = openai_wire.OpenAIParser()
    parser.feed_chunk({"choices": [], "usage": {
        "prompt_tokens": 2000, "completion_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 1536}}})
    assert parser.usage is not None
    assert (parser.usage.input_tokens, parser.usage.cache_read_tokens) == (2000, 1536)
