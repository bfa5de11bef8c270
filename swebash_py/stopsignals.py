"""SIGTERM and SIGHUP end a turn the way Ctrl-C does.

The one-shot runner: a stop signal is passed to the current SIGINT handler
(asyncio's, which cancels the running turn: its stop reason is recorded, the
pending calls are answered, tool processes are stopped), then ``ai`` exits
128 + the signal's number (143, 129) instead of 130. The REPL: its own
callback cancels the running turn and leaves the prompt.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_received: int | None = None


def received() -> int | None:
    """The stop signal that arrived, if one did."""
    return _received


def exit_code(default: int) -> int:
    """128 + the stop signal's number, else ``default``."""
    return 128 + _received if _received is not None else default


def describe() -> str:
    """What stopped us, for the one line shown ("terminated (SIGTERM)")."""
    if _received is None:
        return "interrupted"
    return f"stopped by {signal.Signals(_received).name}"


def install() -> None:
    """Route stop signals to whatever handles SIGINT (one-shot runs)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _as_interrupt)


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    global _received
    first = _received is None
    _received = signum
    handler = signal.getsignal(signal.SIGINT)
    if first and callable(handler):
        handler(signal.SIGINT, frame)
    else:  # a second stop signal, or no Python handler: stop now
        raise KeyboardInterrupt


def install_async(loop: asyncio.AbstractEventLoop, on_stop: Callable[[], None]) -> None:
    """Call ``on_stop`` in the event loop when a stop signal arrives (the REPL)."""
    def stop(signum: int) -> None:
        global _received
        _received = signum
        on_stop()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)


def reset() -> None:
    """Forget a received signal (tests)."""
    global _received
    _received = None
