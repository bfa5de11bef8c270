"""Arguments cut off at the end (a reply that hit its output limit while
writing a big file) are told apart from malformed ones, so the model learns to
send the content in smaller parts instead of repeating the same call."""

from __future__ import annotations

import pytest

from tests.agent.helpers import make_agent, run, sent_results
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.parametrize("wire", ["openai", "anthropic"])


async def _result_for(fake_provider: FakeProvider, wire: str, arguments: str) -> str:
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "peek", arguments)], finish="length"),
                        Reply(text="ok"))
    await run(make_agent(fake_provider, wire, Journal()), "go")
    [(_id, text, is_error)] = sent_results(fake_provider.requests[1])
    assert is_error
    return str(text)


async def test_arguments_cut_off_say_so(fake_provider: FakeProvider, wire: str) -> None:
    text = await _result_for(fake_provider, wire, '{"label": "a long text that stops')
    assert "invalid JSON" in text
    assert "cut off" in text and "max_tokens" in text


async def test_twin_malformed_arguments_are_not_called_cut(fake_provider: FakeProvider,
                                                           wire: str) -> None:
    text = await _result_for(fake_provider, wire, '{"label": nope}')
    assert "invalid JSON" in text
    assert "cut off" not in text
