"""Bounded keeping of a child's output: ``Capture`` (the first and last N bytes,
the middle only counted) and ``Throttle`` (text to a slow consumer at most
every 50 ms, the newest 8 KiB kept). Used by ``proc`` and background jobs."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from swebash_py.process.values import clip_at_cut, partial_prefix


class Capture:
    """The first ``head`` and last ``tail`` bytes of a stream; the middle counted."""

    def __init__(self, head: int, tail: int) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = self.cut_bytes = self.cut_lines = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > 2 * self.tail_limit:
            self._trim()

    def _trim(self) -> None:
        excess = len(self.tail) - self.tail_limit
        if excess > 0:
            self.cut_bytes += excess
            self.cut_lines += self.tail.count(b"\n", 0, excess)
            del self.tail[:excess]

    def hold_back(self, values: list[bytes]) -> bytes:
        """Remove and return the final bytes that could be the start of a secret
        value: a reader that comes back later gets them with what follows."""
        end = bytes(self.tail) if self.cut_bytes else bytes(self.head + self.tail)
        k = partial_prefix(end, values)
        held = end[len(end) - k:]
        from_tail = min(k, len(self.tail))
        del self.tail[len(self.tail) - from_tail:]
        del self.head[len(self.head) - (k - from_tail):]
        return held

    def text(self) -> str:
        self._trim()
        if not self.cut_bytes:
            return (self.head + self.tail).decode("utf-8", "replace")
        # a secret value cut in two could not be redacted: its pieces go too
        head_bytes, tail_bytes = clip_at_cut(bytes(self.head), bytes(self.tail))
        head = head_bytes.decode("utf-8", "replace")
        tail = tail_bytes.decode("utf-8", "replace")
        marker = (f"\n[... {self.cut_bytes:,} bytes ({self.cut_lines:,} lines) of output cut "
                  "from the middle ...]\n")
        return head + marker + tail


class Throttle:
    """Passes text to ``sink`` at most every ``interval`` seconds, keeping the newest."""

    def __init__(self, sink: Callable[[str], None], interval: float = 0.05,
                 keep: int = 8192) -> None:
        self.sink, self.interval, self.keep = sink, interval, keep
        self.pending = ""
        self.dropped = False
        self.last = 0.0
        self.handle: asyncio.TimerHandle | None = None

    def feed(self, text: str) -> None:
        if not text:
            return
        self.pending += text
        if len(self.pending) > self.keep:
            self.pending = self.pending[-self.keep:]
            self.dropped = True
        wait = self.last + self.interval - time.monotonic()
        if wait <= 0:
            self.flush()
        elif self.handle is None:
            self.handle = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        if self.pending:
            text = ("…\n" if self.dropped else "") + self.pending
            self.pending, self.dropped, self.last = "", False, time.monotonic()
            with contextlib.suppress(Exception):
                self.sink(text)
