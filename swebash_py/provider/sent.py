""""The request is out": the one signal that the direct transport has handed a
request's bytes to the kernel.

``cli.warmup`` starts its background imports on it (``on_next``): a thread
importing beside the main one holds the GIL, so it must not begin while the
connection is still being made and the request written (the event loop's first
wait is the connect, not the answer). Process-wide: a one-shot sends one
request at a time. Paths that do not call ``notify`` (litellm's) keep the
warm-up's own fallback.
"""

from __future__ import annotations

from collections.abc import Callable

_WAITING: list[Callable[[], None]] = []


def on_next(callback: Callable[[], None]) -> None:
    """Call ``callback`` once, when the next request has been sent."""
    _WAITING.append(callback)


def notify() -> None:
    """A request has been sent (its bytes written and drained)."""
    callbacks = list(_WAITING)
    _WAITING.clear()
    for callback in callbacks:
        callback()
