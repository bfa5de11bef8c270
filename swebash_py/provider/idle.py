"""The stream idle limit: each complete event must arrive within
``stream_idle_timeout`` seconds of the one before, however many bytes
trickle in between (a read timeout alone restarts on every byte)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TypeVar

from swebash_py.errors import StreamStalled

T = TypeVar("T")


async def idle_limited(items: AsyncIterator[T], seconds: float, source: str) -> AsyncIterator[T]:
    """Yield from ``items``; ``StreamStalled`` when the next one takes over ``seconds``."""
    iterator = aiter(items)
    while True:
        try:
            async with asyncio.timeout(seconds):
                item = await anext(iterator)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise StreamStalled(f"stalled: no complete event from {source} for {seconds:g} s "
                                "(stream_idle_timeout)") from None
        yield item
