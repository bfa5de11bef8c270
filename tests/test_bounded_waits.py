"""Every wait on a provider is bounded (both backends, both wire formats,
through the real HTTP path): a trickle or a silent server fails after
``stream_idle_timeout``, a long ``retry-after`` fails at once, a refused
connection is retried once, an HTML 200 is an error and is not retried."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from swebash_py.engine.messages import Message
from swebash_py.errors import NotAStream, ProviderError, ProviderUnavailable, StreamStalled
from swebash_py.events import ProviderEvent, TextDelta
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.client import ProviderClient
from swebash_py.provider.retry import RetryPolicy
from tests.agent.helpers import MODELS
from tests.e2e.conftest import run_ai
from tests.fakeprovider import ErrorReply, FakeProvider, Reply

IDLE = 0.5


@pytest.fixture(params=["direct", "litellm"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _client(backend: str, notes: list[str], **policy: Any) -> ProviderClient:
    retry = RetryPolicy(**{"max_retries": 4, "base_delay": 0.01, **policy})
    return ProviderClient(backend, retry, notes.append, connect_timeout=2.0,
                          stream_idle_timeout=IDLE)


async def _stream(client: ProviderClient, wire: str, api_base: str) -> list[ProviderEvent]:
    request = ChatRequest(model=MODELS[wire], messages=[Message.user("hi")], api_base=api_base,
                          api_key="test-key")
    return [event async for event in client.stream(request)]


async def _fails(client: ProviderClient, wire: str, api_base: str) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await _stream(client, wire, api_base)
    return info.value


@pytest.mark.parametrize("mode", ["trickle", "silent"])
async def test_no_complete_event_in_time_fails_once(fake_provider: FakeProvider, backend: str,
                                                    wire: str, mode: str) -> None:
    fake_provider.queue(Reply(mode=mode, stall_seconds=30), Reply(text="never asked for"))
    notes: list[str] = []
    error = await _fails(_client(backend, notes), wire, fake_provider.url)
    assert isinstance(error, StreamStalled), error
    assert "stalled" in str(error) and f"{IDLE:g} s" in str(error)
    assert len(fake_provider.requests) == 1 and notes == []  # not retried


async def test_slow_but_steady_events_are_fine(fake_provider: FakeProvider, backend: str,
                                               wire: str) -> None:
    """Twin: the limit is per event, not per reply — a reply that takes many
    times the idle limit in all, one event at a time, goes through."""
    fake_provider.queue(Reply(text="x" * 30, chunk_size=1, delay=IDLE / 10))
    events = await _stream(_client(backend, []), wire, fake_provider.url)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "x" * 30


async def test_a_long_retry_after_fails_at_once(fake_provider: FakeProvider, backend: str,
                                                wire: str) -> None:
    fake_provider.queue(ErrorReply(429, headers={"retry-after": "3600"}), Reply(text="late"))
    notes: list[str] = []
    error = await _fails(_client(backend, notes), wire, fake_provider.url)
    assert "3600 s" in str(error) and "60 s" in str(error)
    assert len(fake_provider.requests) == 1 and notes == []


async def test_a_short_retry_after_is_waited_for(fake_provider: FakeProvider, backend: str,
                                                 wire: str) -> None:
    """Twin: under the cap the retry happens."""
    fake_provider.queue(ErrorReply(429, headers={"retry-after": "0"}), Reply(text="ok"))
    notes: list[str] = []
    events = await _stream(_client(backend, notes), wire, fake_provider.url)
    assert any(isinstance(e, TextDelta) for e in events) and len(notes) == 1


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_connection_refused_is_retried_once(backend: str, wire: str) -> None:
    notes: list[str] = []
    error = await _fails(_client(backend, notes), wire, _closed_port())
    assert isinstance(error, ProviderUnavailable), error
    assert len(notes) == 1, notes


async def test_an_html_200_is_a_clear_error_not_retried(fake_provider: FakeProvider,
                                                        wire: str) -> None:
    fake_provider.queue(Reply(mode="html"), Reply(text="never asked for"))
    notes: list[str] = []
    error = await _fails(_client("direct", notes), wire, fake_provider.url)
    assert isinstance(error, NotAStream) and "text/html" in str(error)
    assert "api_base" in str(error)
    assert len(fake_provider.requests) == 1 and notes == []


async def test_an_html_200_through_litellm_is_not_retried(fake_provider: FakeProvider,
                                                          wire: str) -> None:
    fake_provider.queue(Reply(mode="html"), Reply(text="never asked for"))
    notes: list[str] = []
    error = await _fails(_client("litellm", notes), wire, fake_provider.url)
    assert isinstance(error, NotAStream) and "text/html" in str(error)
    assert len(fake_provider.requests) == 1 and notes == []


def test_the_config_keys_reach_the_provider(fake_provider: FakeProvider, isolated: Any,
                                            workspace: Any) -> None:
    (isolated / "config.toml").write_text(f"stream_idle_timeout = {IDLE}\nmax_retries = 4\n")
    fake_provider.queue(Reply(mode="trickle"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi", cwd=workspace)
    assert result.returncode == 1
    assert "stalled" in result.stderr and f"{IDLE:g} s" in result.stderr
    assert "Traceback" not in result.stderr and len(fake_provider.requests) == 1


async def test_retry_waits_add_up_to_a_cap(fake_provider: FakeProvider) -> None:
    fake_provider.queue(*[ErrorReply(503) for _ in range(5)])
    notes: list[str] = []
    client = _client("direct", notes, base_delay=0.04, max_total_delay=0.05)
    error = await _fails(client, "openai", fake_provider.url)
    assert "gave up after 1 retry and" in str(error)  # the plural right (was "1 retries")
    assert len(notes) == 1 and len(fake_provider.requests) == 2
