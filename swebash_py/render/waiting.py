"""The working indicator: a spinner, the seconds waited and how to stop.

``wait_text`` is its one wording, drawn by the rich renderer's live region once
it exists. Before that (a one-shot sends its question while rich is still being
imported in the background, ``front.warmup``) ``EarlySpinner`` draws the same line
with the standard library alone, from a thread, on one line it erases without
a trace when the renderer takes over. Only on a terminal: never in a pipe.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from swebash_py.render.echo import EchoGuard, terminal_fd

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"  # rich's "dots", so the hand-over does not change the glyphs
FRAME_SECONDS = 0.08
_ERASE = "\r\x1b[2K"
_HIDE, _SHOW = "\x1b[?25l", "\x1b[?25h"


def wait_text(seconds: float) -> str:
    """The words beside the spinner: ``working… 3s · Ctrl-C to stop``."""
    return f"working… {int(seconds)}s · Ctrl-C to stop"


def draws_on(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal that can take the spinner (not dumb)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and os.environ.get("TERM", "") not in ("dumb", "unknown")


class EarlySpinner:
    """The indicator until the renderer exists: a daemon thread redraws one line."""

    def __init__(self, stream: TextIO, clock: float | None = None) -> None:
        self._stream = stream
        self.started = time.monotonic() if clock is None else clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._drawn = False
        self._echo = EchoGuard(terminal_fd(stream))
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Draw the first frame now (the thread might start late under the GIL)."""
        self._echo.off()  # typed keys would land inside the line
        self._draw()
        self._thread = threading.Thread(target=self._run, name="spinner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Erase the line and stop for good (idempotent)."""
        with self._lock:
            if self._stop.is_set():
                return
            self._stop.set()
            self._erase()
        self._echo.restore()

    @contextmanager
    def around(self) -> Iterator[None]:
        """Write something else (a note on stderr): erased before, redrawn after."""
        with self._lock:
            self._erase()
            yield
        self._draw()

    def _run(self) -> None:
        while not self._stop.wait(FRAME_SECONDS):
            self._draw()

    def _draw(self) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            seconds = time.monotonic() - self.started
            frame = FRAMES[int(seconds / FRAME_SECONDS) % len(FRAMES)]
            self._write(f"{_ERASE}{_HIDE}{frame} {wait_text(seconds)}")
            self._drawn = True

    def _erase(self) -> None:
        if self._drawn:
            self._write(_ERASE + _SHOW)
            self._drawn = False

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed terminal: nothing to draw on
            self._stop.set()


_current: EarlySpinner | None = None


def start_early(stream: TextIO | None = None) -> EarlySpinner | None:
    """Start the early spinner on ``stream`` (stdout) when it is a terminal."""
    global _current
    stream = stream or sys.stdout
    if not draws_on(stream):
        return None
    _current = EarlySpinner(stream)
    _current.start()
    return _current


def early_started() -> float | None:
    """When the early spinner began (the renderer counts its seconds from there)."""
    return _current.started if _current is not None else None


def stop_early() -> None:
    global _current
    spinner, _current = _current, None
    if spinner is not None:
        spinner.stop()


@contextmanager
def out_of_the_way() -> Iterator[None]:
    """Around a line written to the terminal while the early spinner may draw."""
    spinner = _current
    if spinner is None:
        yield
        return
    with spinner.around():
        yield
