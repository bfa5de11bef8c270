"""Watching the terminal's focus while a turn runs (the REPL).

At the prompt prompt-toolkit owns the terminal; while a turn runs nobody
reads it. The watch turns focus reports on, reads the terminal with echo
off (so a report never shows as ``^[[O``), feeds the reports to the tracker,
and keeps whatever else was typed to hand back to the next prompt. A question
pauses it (the question's own prompt reads the terminal then).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios
import tty
from collections.abc import Iterator
from typing import TextIO

from swebash_py.ui.notify import DISABLE_FOCUS_REPORTS, ENABLE_FOCUS_REPORTS, FocusTracker


class FocusWatch:
    def __init__(self, tracker: FocusTracker, fd: int | None = None,
                 out: TextIO | None = None) -> None:
        self.tracker = tracker
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.out = out or sys.stdout
        self.typed = bytearray()  # keys typed during the turn, for the next prompt
        self._saved: list[object] | None = None

    def start(self, focused: bool | None = True) -> None:
        """Begin watching (nothing when the fd is not a terminal). ``focused``: what
        we know now (the user just pressed Enter here)."""
        if self._saved is not None or not os.isatty(self.fd):
            return
        try:
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd, termios.TCSANOW)  # keeps ISIG: Ctrl-C still interrupts
            asyncio.get_running_loop().add_reader(self.fd, self._readable)
        except (termios.error, OSError, RuntimeError):
            self._restore()
            return
        self.tracker.focused = focused
        self.out.write(ENABLE_FOCUS_REPORTS)
        self.out.flush()

    def stop(self) -> None:
        if self._saved is None:
            return
        self.out.write(DISABLE_FOCUS_REPORTS)
        self.out.flush()
        with contextlib.suppress(RuntimeError, ValueError):
            asyncio.get_running_loop().remove_reader(self.fd)
        self._readable()  # what arrived before the reports stopped
        self._restore()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Let someone else read the terminal (a question); the focus state stays."""
        running = self._saved is not None
        self.stop()
        try:
            yield
        finally:
            if running:
                self.start(self.tracker.focused)

    def take_typed(self) -> str:
        text = self.typed.decode("utf-8", errors="replace")
        self.typed.clear()
        return text

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096) if _ready(self.fd) else b""
        except OSError:
            data = b""
        self.typed.extend(self.tracker.feed(data))

    def _restore(self) -> None:
        if self._saved is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)  # type: ignore[arg-type]
            self._saved = None


def _ready(fd: int) -> bool:
    import select

    return bool(select.select([fd], [], [], 0)[0])
