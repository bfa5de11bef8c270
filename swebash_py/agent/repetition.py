"""Ends an answer that repeats the same line over and over.

Small local models fall into loops: tried against a llama.cpp server, one wrote
the same line for 2,335 tokens (82 s) with nothing to stop it but Ctrl-C. A
line that comes back ``REPEATS`` times in a row (blank lines between do not
count) is not an answer: the reply is ended there (the request is closed, so the
server stops too), with a note saying why. Short repetitive answers (a list of
a few equal items, a table's rule lines) stay well under the limit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from swebash_py.events import Finish, Notice, ProviderEvent, TextDelta, TurnEvent

REPEATS = 12


class RepeatedLines:
    """Counts how many times in a row the last complete line came back."""

    def __init__(self, limit: int = REPEATS) -> None:
        self.limit = limit
        self.line = ""
        self.count = 0
        self._partial = ""

    def feed(self, text: str) -> bool:
        """Take more text; True once some line has come ``limit`` times in a row."""
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for raw in lines:
            line = raw.rstrip()  # indentation counts: nested closing braces differ
            if not line.strip():
                continue
            if line == self.line:
                self.count += 1
            else:
                self.line, self.count = line, 1
            if self.count >= self.limit:
                return True
        return False


async def without_loops(events: AsyncIterator[ProviderEvent],
                        emit: Callable[[TurnEvent], None],
                        limit: int = REPEATS) -> AsyncIterator[ProviderEvent]:
    """``events`` until the text repeats one line ``limit`` times; then a finish
    of our own, the stream closed, and a notice."""
    seen = RepeatedLines(limit)
    async for event in events:
        yield event
        if isinstance(event, TextDelta) and seen.feed(event.text):
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()  # the request ends: the server stops generating
            emit(Notice(f"the answer was stopped: it repeated the same line {seen.count} "
                        f"times ({seen.line[:60]!r})"))
            yield Finish("stop", "repetition")
            return
