"""Draw the REPL prompt before the heavy imports, then hand over.

Start-up costs ~250 ms of imports (prompt-toolkit alone ~110 ms). Writing a
plain prompt first makes the shell visibly ready at once: keys typed
meanwhile stay in the terminal's input buffer, and prompt-toolkit reads them
when it takes over (it redraws the line, so what the terminal echoed is
replaced). Ctrl-C is ignored until then, so it cannot kill the shell at its
prompt.
"""

from __future__ import annotations

import signal
import sys

PROMPT = "swebash> "
_shown = False


def show() -> None:
    """Write the plain prompt now (only on a terminal)."""
    global _shown
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
    signal.signal(signal.SIGINT, signal.default_int_handler)
