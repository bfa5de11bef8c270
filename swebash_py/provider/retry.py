"""Our retry policy, the same for every backend.

Rate limits, 5xx, connection errors and streams that break before anything
was yielded are retried with capped exponential backoff (honouring the
provider's ``retry-after``); everything else — and any failure after output
was shown — goes straight to the caller. Backends themselves never retry.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from swebash_py.errors import ProviderError
from swebash_py.events import ProviderEvent, UsageReport
from swebash_py.provider.base import Backend, ChatRequest


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_retry_after))
        backoff = min(self.max_delay, self.base_delay * 2**attempt)
        return backoff * random.uniform(0.8, 1.0)


async def stream_with_retry(
    backend: Backend,
    request: ChatRequest,
    policy: RetryPolicy,
    on_retry: Callable[[str], None] = lambda _note: None,
) -> AsyncIterator[ProviderEvent]:
    """Yield the backend's events, retrying failures that happened before output."""
    attempt = 0
    while True:
        shown = False
        try:
            async for event in backend.stream(request):
                if not isinstance(event, UsageReport):
                    shown = True
                yield event
            return
        except ProviderError as exc:
            if shown or not exc.retryable or attempt >= policy.max_retries:
                if attempt and not shown:
                    raise type(exc)(f"{exc} (after {attempt} retries)", status=exc.status,
                                    retry_after=exc.retry_after) from exc
                raise
            wait = policy.delay(attempt, exc.retry_after)
            attempt += 1
            on_retry(f"{exc}; retrying in {wait:.1f}s ({attempt}/{policy.max_retries})")
            await asyncio.sleep(wait)
