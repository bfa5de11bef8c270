"""Draw the REPL prompt before the heavy imports, then hand over.

Start-up costs ~250 ms of imports (prompt-toolkit alone ~110 ms). Writing a
plain prompt first makes the shell visibly ready at once: keys typed
meanwhile stay in the terminal's input buffer, and prompt-toolkit reads them
when it takes over (it redraws the line, so what the terminal echoed is
replaced). Until then the terminal reads keys one by one without turning
Ctrl-C or Ctrl-D into signals or line edits (no ICANON, no ISIG; echo stays
on): in cooked mode Ctrl-C would flush the input queue, losing what was typed
with it (a Ctrl-D right after, say), and Ctrl-D would be swallowed by the line
discipline. So they wait, as bytes, for the real prompt, which handles them.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import sys
import termios
from typing import Any

PROMPT = "swebash> "
_shown = False
_saved: list[Any] | None = None  # the terminal's modes before show()


def show() -> None:
    """Write the plain prompt now (only on a terminal)."""
    global _shown
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _keys_as_bytes(sys.stdin.fileno())
    sys.stdout.write(PROMPT)
    sys.stdout.flush()
    _shown = True


def hand_over() -> None:
    """Clear the plain prompt's line and restore Ctrl-C; the real prompt follows."""
    global _shown
    if not _shown:
        return
    _shown = False
    sys.stdout.write("\r\x1b[2K")
    sys.stdout.flush()
    _restore()
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _keys_as_bytes(fd: int) -> None:
    """Non-canonical input without signal keys; the queue is kept (TCSANOW)."""
    global _saved
    try:
        saved = termios.tcgetattr(fd)
        modes = termios.tcgetattr(fd)
        modes[3] &= ~(termios.ICANON | termios.ISIG)
        modes[6][termios.VMIN], modes[6][termios.VTIME] = 1, 0
        termios.tcsetattr(fd, termios.TCSANOW, modes)
    except termios.error:
        return
    _saved = saved
    atexit.register(_restore)  # whatever way start-up ends, the terminal is as it was


def _restore() -> None:
    global _saved
    saved, _saved = _saved, None
    if saved is not None:
        with contextlib.suppress(termios.error, ValueError, OSError):
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, saved)
