"""A reader that went away (``ai "x" | head -2``): end quietly, like Unix tools.

The conventional outcome is the SIGPIPE exit status, 141 (128 + 13), with
nothing on stderr. stdout is pointed at ``/dev/null`` so the interpreter's
last flush of what is still buffered cannot raise again at exit.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress

EXIT_BROKEN_PIPE = 141


def quiet_broken_pipe() -> int:
    """Silence stdout (and stderr, if that pipe is gone too); returns 141."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError, AttributeError):
            stream.flush()
            continue
        with suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
    return EXIT_BROKEN_PIPE
