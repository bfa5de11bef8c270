"""A piped answer without rich: the text is written here; anything else is drawn
by ``render.PlainRenderer``, which (and with it rich, ~10% of a one-shot's
start-up) is imported only when such an event comes (a tool call, a notice).

The output is byte for byte ``PlainRenderer``'s: the answer text neutralized,
chunk by chunk, on stdout; its status lines on stderr, each after a newline that
ends the answer's line on stdout, as ``PlainRenderer`` does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, TextIO, cast

from swebash_py.events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    ToolProgress,
    TurnComplete,
    TurnStart,
    UsageEvent,
)
from swebash_py.render.sanitize import StreamNeutralizer

QUIET_STOPS = ("stop",)  # PlainRenderer adds no line after these (a test keeps it so)


def surely_plain(stream: TextIO) -> bool:
    """Whether rich would treat ``stream`` as no terminal (``make_renderer``'s plain):
    not a tty, and no FORCE_COLOR / TTY_COMPATIBLE=1 saying otherwise."""
    if "FORCE_COLOR" in os.environ or os.environ.get("TTY_COMPATIBLE") == "1":
        return False
    try:
        return not stream.isatty()
    except ValueError:  # closed
        return False


class PipedText:
    """The plain renderer of a one-shot answer whose stdout is not a terminal."""

    def __init__(self, out: TextIO | None = None, status: TextIO | None = None) -> None:
        self._out = out or sys.stdout
        self._status = status or sys.stderr
        self._clean = StreamNeutralizer()
        self._at_line_start = True
        self._real: Any = None  # the PlainRenderer, once an event needs it

    def handle(self, event: Any) -> None:
        if isinstance(event, BlockDelta):
            if event.kind == "text" and event.text:
                self._write(self._clean.feed(event.text))
        elif isinstance(event, BlockStop) and event.kind == "text":
            self._write(self._clean.finish())
        elif isinstance(event, TurnStart | BlockStart | ToolProgress | UsageEvent) or (
                isinstance(event, BlockStop) and event.kind == "thinking"):
            pass  # PlainRenderer shows none of these (usage only when asked)
        elif isinstance(event, TurnComplete):
            self.close()
            if event.stop_reason not in QUIET_STOPS:
                self._renderer().handle(event)
        else:
            self._renderer().handle(event)

    def close(self) -> None:
        self._write(self._clean.finish())
        self._end_line()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        self._end_line()
        yield

    def _write(self, text: str) -> None:
        if text:
            self._out.write(text)
            self._out.flush()
            self._at_line_start = text.endswith("\n")

    def _end_line(self) -> None:
        if not self._at_line_start:
            self._out.write("\n")
            self._out.flush()
            self._at_line_start = True

    def _renderer(self) -> Any:
        if self._real is None:
            from rich.console import Console

            from swebash_py.render import make_renderer

            status = Console(file=cast(IO[str], _EndsLineFirst(self._status, self._end_line)))
            self._real = make_renderer(Console(file=self._out), plain=True, status=status)
        return self._real


class _EndsLineFirst:
    """The status stream: before a status line is written, the answer's line on
    stdout is ended (where ``PlainRenderer`` ends it)."""

    def __init__(self, stream: TextIO, end_line: Any) -> None:
        self._stream = stream
        self._end_line = end_line

    def write(self, text: str) -> int:
        self._end_line()
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding
        return getattr(self._stream, name)
