"""A reader that went away (``ai "x" | head -2``): end quietly, status 0.

Not the SIGPIPE status 141: whether a write meets the closed pipe depends on
how the output was cut into writes (JSON mode writes ``turn_start`` before the
answer, a short text answer is one write), so 141 would come and go with
timing and differ between text and JSON mode; 0, with nothing on stderr, is
the same in every case (and does not trip ``set -o pipefail``). stdout is
pointed at ``/dev/null`` so the interpreter's last flush of what is still
buffered cannot raise again at exit.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress

EXIT_BROKEN_PIPE = 0


def quiet_broken_pipe() -> int:
    """Silence stdout (and stderr, if that pipe is gone too); returns 0."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError, AttributeError):
            stream.flush()
            continue
        with suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
    return EXIT_BROKEN_PIPE
