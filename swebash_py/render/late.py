"""A renderer made at its first paint, once the background imports it draws with are in.

``cli.oneshot`` hands the turn's events to this stand-in from the start; the
request must go out before rich and the Markdown machinery are imported, so
the real renderer is built (after ``wait``, ``front.warmup``'s join) only when an
event has to be drawn. ``TurnStart``, which draws nothing and comes before the
request, is kept and handed on with the first event that does draw; it calls
``begin`` (the owner starts loading once the request is out). With
``spinner`` the working indicator is drawn from ``TurnStart`` on by
``render.waiting``'s stdlib spinner, while rich is still being imported; the
renderer built at the first paint carries it on from the same second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from swebash_py.events import TurnEvent, TurnStart


class Drawing(Protocol):
    """What a renderer offers (``cli.oneshot.Renderer``)."""

    def handle(self, event: TurnEvent) -> None: ...
    def close(self) -> None: ...
    def suspend(self) -> AbstractContextManager[object]: ...


class LateRenderer:
    """Stands in for ``make()``'s renderer until the first event that draws."""

    def __init__(self, make: Callable[[], Drawing], wait: Callable[[], None],
                 begin: Callable[[], None] = lambda: None, *, spinner: bool = False) -> None:
        self._make = make
        self._spinner = spinner
        self._wait = wait
        self._begin = begin
        self._real: Drawing | None = None
        self._held: list[TurnEvent] = []

    def handle(self, event: TurnEvent) -> None:
        if self._real is None and isinstance(event, TurnStart):
            self._held.append(event)  # nothing to draw: the request goes out first
            self._begin()
            if self._spinner:
                from swebash_py.render import waiting

                waiting.start_early()
            return
        self._renderer().handle(event)

    def close(self) -> None:
        self._stop_spinner()
        if self._real is not None:  # nothing drawn: nothing to close
            self._real.close()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        with self._renderer().suspend():
            yield

    def _renderer(self) -> Drawing:
        if self._real is None:
            self._wait()  # the early spinner keeps turning meanwhile
            real = self._real = self._make()
            self._stop_spinner()
            held, self._held = self._held, []
            for event in held:
                real.handle(event)
        return self._real

    def _stop_spinner(self) -> None:
        if self._spinner:
            from swebash_py.render import waiting

            waiting.stop_early()
