"""SIGTERM and SIGHUP end a turn the way Ctrl-C does.

The one-shot runner: a stop signal is passed to asyncio's SIGINT handler,
which cancels the running turn (its stop reason is recorded, the pending
calls are answered, tool processes are stopped), then ``ai`` exits 128 + the
signal's number (143, 129) instead of 130; with no turn running it exits at once. The REPL: its own
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
    """A running event loop handles it as Ctrl-C (asyncio cancels the main task,
    a second one stops at once); outside one, exit now with 128 + signum."""
    global _received
    _received = signum
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not signal.default_int_handler:
        handler(signal.SIGINT, frame)
        return
    raise SystemExit(128 + signum)


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
