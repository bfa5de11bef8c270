"""Terminal echo off while a live region is drawn.

The tty echoes what the user types (and ``^C`` for Ctrl-C) at the cursor, which
sits inside rich's live region; the region is then erased by counting lines, so
echoed text shifts it and leaves a stale copy (a line of the answer printed
twice, a typed fragment above the answer, ``^Ccancelled``). With echo off the
keys still go to the input queue: the next prompt reads them (type-ahead is
kept), and Ctrl-C still raises SIGINT.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
from typing import Any

try:
    import termios
except ImportError:  # pragma: no cover - not on POSIX
    termios = None  # type: ignore[assignment]


def terminal_fd(console_file: Any) -> int | None:
    """stdin's descriptor when both it and ``console_file`` are real terminals."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        if sys.stdin is not None and sys.stdin.isatty() and console_file.isatty():
            return int(sys.stdin.fileno())
    return None


class EchoGuard:
    """``off()`` clears ECHO on ``fd``; ``restore()`` sets it again (only that bit)."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self._off = False
        self._registered = False

    def off(self) -> None:
        if self._fd is None or self._off or termios is None:
            return
        if not self._set_echo(False):
            return
        self._off = True
        if not self._registered:  # an early exit must not leave the terminal silent
            atexit.register(self.restore)
            self._registered = True

    def restore(self) -> None:
        if self._off:
            self._off = False
            self._set_echo(True)

    def _set_echo(self, on: bool) -> bool:
        """Set the ECHO bit; False when it was already as asked or cannot be set."""
        assert self._fd is not None
        try:
            mode: list[Any] = termios.tcgetattr(self._fd)
            if bool(mode[3] & termios.ECHO) == on:
                return False
            mode[3] = mode[3] | termios.ECHO if on else mode[3] & ~termios.ECHO
            termios.tcsetattr(self._fd, termios.TCSANOW, mode)
        except (termios.error, OSError):
            return False
        return True
