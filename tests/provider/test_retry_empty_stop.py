"""A stream that ends before its first content is a cut, retried (#29)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from swebash_py.events import Finish, ProviderEvent, TextDelta, UsageReport
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.retry import RetryPolicy, stream_with_retry

FAST = RetryPolicy(max_retries=2, base_delay=0.0)


class Scripted:
    """A backend whose every request streams the next script."""

    name = "scripted"

    def __init__(self, *scripts: list[ProviderEvent]) -> None:
        self.scripts = list(scripts)
        self.calls = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.calls += 1
        for event in self.scripts.pop(0):
            yield event


def run(backend: Scripted) -> list[ProviderEvent]:
    async def go() -> list[ProviderEvent]:
        request = ChatRequest("openai/x", [])
        return [e async for e in stream_with_retry(backend, request, FAST)]  # type: ignore[arg-type]
    return asyncio.run(go())


def test_a_bare_stop_before_any_content_is_retried() -> None:
    backend = Scripted([Finish("stop")], [TextDelta("hi"), UsageReport(1, 1), Finish("stop")])
    assert run(backend) == [TextDelta("hi"), UsageReport(1, 1), Finish("stop")]
    assert backend.calls == 2


def test_the_twin_an_empty_answer_with_its_usage_is_passed_on() -> None:
    backend = Scripted([UsageReport(3, 0), Finish("stop")], [TextDelta("never")])
    assert run(backend) == [UsageReport(3, 0), Finish("stop")]
    assert backend.calls == 1


def test_the_twin_a_stop_after_content_is_not_retried() -> None:
    backend = Scripted([TextDelta("hi"), Finish("stop")], [TextDelta("never")])
    assert run(backend) == [TextDelta("hi"), Finish("stop")]
    assert backend.calls == 1


def test_the_twin_a_filtered_empty_reply_is_not_a_cut() -> None:
    backend = Scripted([Finish("content_filter")], [TextDelta("never")])
    assert run(backend) == [Finish("content_filter")]
