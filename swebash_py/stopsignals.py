"""SIGTERM and SIGHUP end a turn the way Ctrl-C does.

The one-shot runner: a stop signal is passed to asyncio's SIGINT handler,
which cancels the running turn (its stop reason is recorded, the pending
calls are answered, tool processes are stopped), then ``ai`` exits 128 + the
signal's number (143, 129) instead of 130; with no turn running it exits at once. The REPL: its own
callback cancels the running turn and leaves the prompt.

``held()`` marks a section a stop signal must not break into: C code that calls
back into Python (msgspec's conversion of the settings, with its hooks and
checks). An exception raised there by the signal handler crashed the process
(SIGSEGV instead of exit 129, seen when SIGHUP came during start-up); a stop
signal that arrives inside takes effect when the section ends.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_received: int | None = None
_held = 0  # depth of held() sections
_deferred: int | None = None  # a stop signal that came inside one


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


@contextmanager
def held() -> Iterator[None]:
    """Run a section a stop signal must not break into; one arriving meanwhile
    takes effect (as ``_as_interrupt``) when the outermost section ends."""
    global _held, _deferred
    _held += 1
    try:
        yield
    finally:
        _held -= 1
    if not _held and _deferred is not None:
        signum, _deferred = _deferred, None
        _as_interrupt(signum, None)


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    """A running event loop handles it as Ctrl-C (asyncio cancels the main task,
    a second one stops at once); outside one, exit now with 128 + signum. Inside
    ``held()`` it waits for the section's end."""
    global _received, _deferred
    _received = signum
    if _held:
        _deferred = signum
        return
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
    global _received, _deferred
    _received = _deferred = None
