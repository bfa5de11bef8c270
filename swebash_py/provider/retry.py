"""Our retry policy, the same for every backend.

Rate limits, 5xx, connection errors and streams that break before anything
was yielded are retried with capped exponential backoff (honouring the
provider's ``retry-after``); everything else — and any failure after output
was shown — goes straight to the caller. Backends themselves never retry.

Every wait is bounded: a ``retry-after`` over ``max_retry_after`` fails at
once (naming the wait asked for), an error may cap its own retries (a refused
connection is retried once), a stalled stream is not retried. With the
defaults a dead provider fails within about two minutes (see the README).

A stream that ends before its first content is a cut too, however it ended:
litellm turns a body closed early into a plain ``stop`` with nothing in it
(no text, no usage), which would otherwise reach the user as "the model
returned an empty answer" (``empty_stop``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from swebash_py.errors import ProviderError, StreamCut
from swebash_py.events import Finish, ProviderEvent, UsageReport
from swebash_py.provider.base import Backend, ChatRequest


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    max_total_delay: float = 90.0  # all the waits between the attempts of one request

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_retry_after))
        import random  # here: only a retry waits (an answer that needs none imports none)

        backoff = min(self.max_delay, self.base_delay * 2.0**attempt)
        return backoff * random.uniform(0.8, 1.0)

    def retries_for(self, exc: ProviderError) -> int:
        """How many retries this error may have."""
        if not exc.retryable:
            return 0
        limit = exc.retry_limit
        return self.max_retries if limit is None else min(limit, self.max_retries)


REFUSED_WORDS = ("connection refused", "connect call failed", "cannot connect to host")
REFUSED_RETRIES = 1


def connection_refused(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) is a refused connection: nothing
    listens there, so waiting longer will not help."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ConnectionRefusedError) or any(
                word in str(exc).lower() for word in REFUSED_WORDS):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def empty_stop(event: ProviderEvent, usage: bool) -> bool:
    """A ``stop`` before any content and without the usage every finished reply
    reports: the body was cut, not answered (an answer that is really empty
    still carries its usage and is passed on)."""
    return isinstance(event, Finish) and event.reason == "stop" and not usage


async def stream_with_retry(
    backend: Backend,
    request: ChatRequest,
    policy: RetryPolicy,
    on_retry: Callable[[str], None] = lambda _note: None,
) -> AsyncIterator[ProviderEvent]:
    """Yield the backend's events, retrying failures that happened before output."""
    attempt, waited = 0, 0.0
    while True:
        shown = usage = False
        try:
            async for event in backend.stream(request):
                if isinstance(event, UsageReport):
                    usage = True
                elif not shown and empty_stop(event, usage):
                    raise StreamCut("the stream ended before its first content")
                else:
                    shown = True
                yield event
            return
        except ProviderError as exc:
            too_long = exc.retry_after is not None and exc.retry_after > policy.max_retry_after
            if shown or too_long or attempt >= policy.retries_for(exc):
                if too_long and not shown:
                    raise type(exc)(f"{exc} (the provider asks to wait {exc.retry_after:g} s, "
                                    f"more than the {policy.max_retry_after:g} s we wait; try "
                                    "again later)", status=exc.status,
                                    retry_after=exc.retry_after) from exc
                if attempt and not shown:
                    raise type(exc)(f"{exc} (after {_retries(attempt)})", status=exc.status,
                                    retry_after=exc.retry_after) from exc
                raise
            wait = policy.delay(attempt, exc.retry_after)
            if waited + wait > policy.max_total_delay:
                raise type(exc)(f"{exc} (gave up after {_retries(attempt)} and {waited:.0f} s of "
                                "waiting)", status=exc.status, retry_after=exc.retry_after) from exc
            waited += wait
            attempt += 1
            on_retry(f"{exc}; retrying in {wait:.1f}s ({attempt}/{policy.max_retries})")
            await asyncio.sleep(wait)


def _retries(n: int) -> str:
    return "1 retry" if n == 1 else f"{n} retries"
