"""A background command dies with ``ai``, even when ``ai`` is SIGKILLed.

On Linux the started process asks the kernel for a signal when its parent
dies (``PR_SET_PDEATHSIG``); the shell around a background command traps it
and kills its own process group (``tools.background.WRAPPER``). No cleanup
code of ours runs after a SIGKILL, so this is the only wall left then.
Elsewhere (no such signal) the session's close and the reaper remain.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

DEATH_SIGNAL = signal.SIGUSR1


def parent_death_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking the kernel to signal the child when we die (Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: a session that starts no background command needs none

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    from swebash_py.process import reaper  # here, before the fork: no import in the child

    parent = os.getpid()

    def ask(option: int, value: int) -> None:
        prctl(option, value, 0, 0, 0)

    return lambda: reaper.die_with(parent, int(DEATH_SIGNAL), ask)
