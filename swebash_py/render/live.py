"""One transient live region at the bottom of the screen, refreshed sparingly.

Everything printed through ``LiveArea.print`` lands above the region in normal
scrollback; the region itself (a markdown preview, spinners) is erased when it
stops. Refreshes are throttled to ``max_fps`` (fewer when a redraw is slow); a
small ticker thread animates spinners and shows a preview the throttle held back.
Settled answer blocks are ``queue``d and printed with the next frame, all at
once: while a rich ``Live`` runs, every ``print`` also redraws the region, so
printing per block would redraw it per block. Terminal echo is off while the
region is drawn (see ``echo``). All drawing happens under the owner's lock
(always taken before rich's own locks, so no deadlock).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.segment import Segment

from swebash_py.render.echo import EchoGuard, terminal_fd


class _View:
    """Calls the owner for the current renderables; keeps only the last screenful."""

    def __init__(self, parts: Callable[[], list[RenderableType]]) -> None:
        self._parts = parts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        parts = self._parts()
        if not parts:
            return
        lines = console.render_lines(Group(*parts), options, pad=False)
        keep = max(1, (options.height or console.height) - 1)
        new_line = Segment.line()
        for line in lines[-keep:]:
            yield from line
            yield new_line


class LiveArea:
    """A rich ``Live`` started on demand, throttled, suspendable."""

    def __init__(
        self,
        console: Console,
        parts: Callable[[], list[RenderableType]],
        lock: threading.RLock,
        clock: Callable[[], float],
        *,
        max_fps: float = 20.0,
        tick: float | None = 0.1,
        prepare: Callable[[], None] | None = None,
    ) -> None:
        self._console = console
        self._prepare = prepare  # called before each frame (to queue settled blocks)
        self._lock = lock
        self._clock = clock
        self._interval = 1.0 / max_fps
        self._tick = tick
        self._live: Live | None = None
        self._view = _View(parts)
        self._last = float("-inf")
        self._gap = self._interval
        self._suspended = 0
        self._stop_tick = threading.Event()
        self._ticker: threading.Thread | None = None
        self._pending: list[RenderableType] = []
        self._held: list[RenderableType] = []  # printed while suspended: shown on resume
        self._echo = EchoGuard(terminal_fd(console.file))

    @property
    def active(self) -> bool:
        return self._live is not None

    def print(self, *objects: RenderableType) -> None:
        """Print above the live region (or plainly when it is not running), after
        whatever was queued or is ready to be (so the order on screen is kept).
        While suspended (a question is open) it is held and printed on resume."""
        if self._suspended:
            self._held.extend(objects)
            return
        if self._prepare is not None:
            self._prepare()
        self._flush()
        self._console.print(*objects)

    def queue(self, *objects: RenderableType) -> None:
        """Print above the region with the next frame (now, when no region runs)."""
        if self._suspended:
            self._held.extend(objects)
        elif self._live is None:
            self._flush()
            self._console.print(*objects)
        else:
            self._pending.extend(objects)

    def update(self, *, force: bool = False) -> None:
        """Note new content; redraw now if forced or the throttle allows."""
        if self._suspended:
            return
        if self._live is None:
            self._start()
        if force or self._clock() - self._last >= self._gap:
            self._refresh()

    def stop(self) -> None:
        """Erase the region and stop drawing until the next ``update``."""
        live, self._live = self._live, None
        if live is not None:
            live.stop()
        self._flush()  # after the region is gone: no redraw of it for these
        self._echo.restore()
        self._stop_ticker()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        """Hide the region while something else owns the terminal (an approval
        question): nothing draws meanwhile; what was printed shows on resume."""
        with self._lock:
            was_active = self._live is not None
            self.stop()
            self._suspended += 1
        try:
            yield
        finally:
            with self._lock:
                self._suspended -= 1
                if not self._suspended:
                    held, self._held = self._held, []
                    for each in held:
                        self._console.print(each)
                    if was_active:
                        self.update(force=True)

    # ------------------------------------------------------------ internals

    def _start(self) -> None:
        self._live = Live(
            self._view,
            console=self._console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            vertical_overflow="visible",
        )
        self._live.start()
        self._echo.off()
        if self._tick and self._ticker is None:
            self._stop_tick = threading.Event()
            self._ticker = threading.Thread(target=self._run_ticker, daemon=True)
            self._ticker.start()

    def _flush(self) -> None:
        if self._pending:
            objects, self._pending = self._pending, []
            self._console.print(*objects)

    def _refresh(self) -> None:
        started = time.perf_counter()
        if self._prepare is not None:
            self._prepare()
        if self._pending:
            self._flush()  # a print redraws the live region too
        elif self._live is not None:
            self._live.refresh()
        # A slow redraw (a big preview) must not eat the stream: wait 3x its cost.
        self._gap = max(self._interval, 3 * (time.perf_counter() - started))
        self._last = self._clock()

    def _run_ticker(self) -> None:
        stop = self._stop_tick
        assert self._tick is not None
        while not stop.wait(self._tick):
            with self._lock:
                if stop.is_set() or self._live is None:
                    return
                if self._clock() - self._last >= self._gap:
                    self._refresh()

    def _stop_ticker(self) -> None:
        # Not joined: the ticker may be waiting for the lock our caller holds; it
        # sees the event (or ``_live is None``) and exits without drawing.
        self._ticker = None
        self._stop_tick.set()
