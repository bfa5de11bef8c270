"""A rendered answer in a terminal without rich, while it is plain prose.

``render.Renderer`` draws a prose answer as a transient live preview of its
unsettled tail (rich's ``Live``, throttled by ``render.live.LiveArea``) and its
settled paragraphs above it; importing rich for that costs ~15% of a one-shot's
start-up. ``TtyText`` writes the very same bytes with the standard library: the
same frames at the same clock readings (throttle, redraw cost, ticker), the same
cursor hiding, erasing and padding (``render.prose_lines``), the same settling
(``render.prose.ProseSplitter``), and turns terminal echo off meanwhile as
``LiveArea`` does.

On anything else it hands the turn over to the real ``Renderer`` (rich imported
then): a chunk that is not prose or not ASCII, an event it does not draw (tool
calls, thinking, notices, errors, approvals, stop notes), a preview it cannot
draw, ``suspend``. The hand-over erases the live region as rich's ``Live`` does
when it stops, prints the settled paragraphs waiting for the next frame, and the
``Renderer`` adopts the open text (splitter, neutralizer, what was printed).
``mirrors`` says where it may be used at all: where rich's ``Console`` would be an
interactive, non-dumb terminal whose size it can mirror (no FORCE_COLOR,
TTY_COMPATIBLE, TTY_INTERACTIVE, Jupyter, Windows). Tests compare the bytes with
the ``Renderer``'s on a rich console, and the screens after a hand-over.
"""

from __future__ import annotations

import builtins
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from swebash_py.events import BlockDelta, BlockStart, BlockStop, TurnComplete, TurnStart, UsageEvent
from swebash_py.render.echo import EchoGuard, terminal_fd
from swebash_py.render.prose import ProseBlock, ProseSplitter, is_prose, paragraphs
from swebash_py.render.prose_lines import drawable, prose_lines
from swebash_py.render.sanitize import StreamNeutralizer
from swebash_py.render.settling import screenful

if TYPE_CHECKING:
    from swebash_py.render.console import Renderer

_HIDE, _SHOW = "\x1b[?25l", "\x1b[?25h"
_ERASE_LINE, _UP_ERASE = "\x1b[2K", "\x1b[1A\x1b[2K"
_NOT_MIRRORED = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


def mirrors(stream: TextIO) -> bool:
    """Whether rich's ``Console()`` on ``stream`` is a terminal ``TtyText`` mirrors: an
    interactive tty, not dumb, sized from the terminal or COLUMNS/LINES > 0."""
    env = os.environ
    if sys.platform == "win32" or any(name in env for name in _NOT_MIRRORED):
        return False
    if env.get("TERM", "").lower() in ("dumb", "unknown") or hasattr(builtins, "get_ipython"):
        return False
    if str(getattr(sys.stdin, "__module__", "")).startswith("idlelib"):
        return False
    if 0 in (_env_number("COLUMNS"), _env_number("LINES")):
        return False  # rich would draw at width (or height) 0
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


class TerminalSize:
    """rich's ``Console.size`` for a console made now with no size given: COLUMNS and
    LINES (digits) fix it; else the first of stdin, stdout, stderr that is a
    terminal, overridden by COLUMNS/LINES as they are then, 80x25 when unknown."""

    def __init__(self) -> None:
        self._width = _env_number("COLUMNS")
        self._height = _env_number("LINES")

    def __call__(self) -> tuple[int, int]:
        if self._width is not None and self._height is not None:
            return self._width, self._height
        width = height = None
        for fd in _std_fds():
            try:
                width, height = os.get_terminal_size(fd)
            except (AttributeError, ValueError, OSError):
                continue
            break
        columns, lines = _env_number("COLUMNS"), _env_number("LINES")
        width = (width if columns is None else columns) or 80
        height = (height if lines is None else lines) or 25
        return (width if self._width is None else self._width,
                height if self._height is None else self._height)


def _env_number(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value is not None and value.isdigit() else None


def _std_fds() -> list[int]:
    fds = []
    for n, stream in enumerate((sys.__stdin__, sys.__stdout__, sys.__stderr__)):
        try:
            fds.append(stream.fileno())  # type: ignore[union-attr]
        except Exception:  # as rich: any failure means the standard number
            fds.append(n)
    return fds


def _prose_preview(text: str) -> bool:
    """Whether rich previews ``text`` as ``Prose``, or as Markdown that draws the same:
    a screenful cut mid-line may start with up to 3 spaces (a paragraph's, trimmed)."""
    if is_prose(text):
        return True
    start = text.lstrip(" ")
    return len(text) - len(start) <= 3 and is_prose(start)


def _rich_renderer() -> Renderer:
    from rich.console import Console

    from swebash_py.render.console import Renderer

    return Renderer(Console())  # what make_renderer(status_to_stderr=True) makes here


class TtyText:
    """``Renderer``'s output for a prose answer on a terminal; the ``Renderer`` after."""

    def __init__(self, out: TextIO | None = None, *,
                 real: Callable[[], Renderer] = _rich_renderer,
                 size: Callable[[], tuple[int, int]] | None = None,
                 clock: Callable[[], float] = time.monotonic, max_fps: float = 20.0,
                 tick: float | None = 0.1) -> None:
        self._fixed_out = out
        self._make_real = real
        self._size = size or TerminalSize()
        self._clock = clock
        self._interval = 1.0 / max_fps
        self._tick = tick
        self._lock = threading.RLock()
        self._real: Renderer | None = None
        self._splitter: ProseSplitter | None = None  # the open text, as MarkdownStream
        self._clean = StreamNeutralizer()
        self._text_printed = False
        self._printed = False  # anything printed in this turn (Renderer's spacing)
        self._live = False  # the live region is running (rich's Live started)
        self._height: int | None = None  # lines drawn in the region; None: never drawn
        self._last = float("-inf")
        self._gap = self._interval
        self._pending: list[ProseBlock] = []  # settled, printed with the next frame
        self._echo = EchoGuard(terminal_fd(self._out))
        self._stop_tick = threading.Event()
        self._ticker: threading.Thread | None = None

    @property
    def _out(self) -> TextIO:
        return self._fixed_out or sys.stdout  # rich's Console writes to sys.stdout of the time

    # ------------------------------------------------------------ public

    def handle(self, event: Any) -> None:
        with self._lock:
            if self._real is not None:
                self._real.handle(event)
            elif isinstance(event, BlockDelta) and event.kind == "text":
                if self._splitter is not None or self._begin_text():
                    self._feed(event.text)
                else:
                    self._hand_over().handle(event)
            elif isinstance(event, BlockStart) and event.kind == "text":
                if not self._begin_text():
                    self._hand_over().handle(event)
            elif isinstance(event, BlockStop) and event.kind == "text":
                if self._end_text():
                    self._stop()
                else:
                    self._hand_over().handle(event)
            elif isinstance(event, TurnStart):
                self._printed = False
            elif isinstance(event, UsageEvent):
                pass  # shown only with show_usage, which a one-shot does not ask
            elif isinstance(event, TurnComplete) and event.stop_reason == "stop":
                self.close()  # no stop note follows a plain stop
            else:
                self._hand_over().handle(event)

    def close(self) -> None:
        with self._lock:
            if self._real is not None:
                self._real.close()
            elif not self._end_text():
                self._hand_over().close()
            else:
                self._clock()  # Renderer.close reads the clock once (for its tools)
                self._stop()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        with self._lock:
            real = self._real or self._hand_over()
        with real.suspend():
            yield

    # ------------------------------------------------------------ text

    def _begin_text(self) -> bool:
        """A new text block (False: the Renderer must: one is open, or a gap is owed)."""
        if self._splitter is not None or self._printed:
            return False
        self._splitter, self._clean = ProseSplitter(), StreamNeutralizer()
        self._text_printed = False
        return True

    def _feed(self, chunk: str) -> None:
        assert self._splitter is not None
        text = self._clean.feed(chunk)
        if text:
            self._splitter.add(text)
            if not (self._splitter.prose and drawable(text)):
                self._hand_over(redraw=True)
                return
        self._update()

    def _end_text(self) -> bool:
        """MarkdownStream.finish (False: what is left is not ours to draw: nothing done)."""
        splitter = self._splitter
        if splitter is None:
            return True
        rest = self._clean.finish()
        if rest:
            splitter.add(rest)
            if not (splitter.prose and drawable(rest)):
                return False  # the Renderer adopts it (rest added) and finishes it
            self._queue(splitter.settle())
        self._queue(splitter.finish())
        self._splitter = None
        self._printed = self._printed or self._text_printed
        return True

    def _queue(self, blocks: list[ProseBlock]) -> None:
        """LiveArea.queue: with the next frame, or now when no region runs."""
        if not blocks:
            return
        self._pending.extend(blocks)
        if not self._live:
            self._write(self._flushed())
        self._text_printed = True

    # ------------------------------------------------------------ live region

    def _update(self) -> None:
        if not self._live:
            self._start()
        if self._clock() - self._last >= self._gap:
            self._refresh()

    def _start(self) -> None:
        self._live = True
        self._write(_HIDE)
        self._echo.off()
        if self._tick and self._ticker is None:
            self._stop_tick = threading.Event()
            self._ticker = threading.Thread(target=self._run_ticker, daemon=True)
            self._ticker.start()

    def _refresh(self) -> None:
        started = time.perf_counter()
        if self._splitter is not None:
            self._queue(self._splitter.settle())
        region = self._region()
        if region is None:  # a preview only rich draws
            self._hand_over(redraw=True)
            return
        self._write(self._position() + self._flushed() + "\n".join(region))
        self._height = len(region)
        self._gap = max(self._interval, 3 * (time.perf_counter() - started))
        self._last = self._clock()

    def _region(self) -> list[str] | None:
        """The live region's lines (``_View`` of ``TailPreview``), None when not drawable."""
        if self._splitter is None or not self._splitter.tail.strip():
            return []
        width, height = self._size()
        text = screenful(self._splitter.tail, height, height * width, False)
        if width < 1 or not _prose_preview(text):
            return None
        return prose_lines(paragraphs(text), width)[-max(1, height - 1):]

    def _position(self) -> str:
        """LiveRender.position_cursor: to the start of the region, erasing it."""
        if self._height is None:
            return ""
        return "\r" + _ERASE_LINE + _UP_ERASE * (self._height - 1)

    def _flushed(self) -> str:
        blocks, self._pending = self._pending, []
        if not blocks:
            return ""
        width = self._size()[0]
        return "".join(("\n" if block.gap_before else "")
                       + "".join(line + "\n" for line in prose_lines(block.paragraphs, width))
                       for block in blocks)

    def _stop(self) -> None:
        """LiveArea.stop with no open text: Live.stop's empty last frame, the cursor
        shown again, then what was queued."""
        if self._live:
            self._live = False
            # Live.stop: a last (empty) frame, the cursor shown, back to its start
            self._write(self._position() + _SHOW + "\r")
            self._height = None
        self._write(self._flushed())
        self._echo.restore()
        self._ticker = None
        self._stop_tick.set()

    def _run_ticker(self) -> None:
        stop = self._stop_tick
        assert self._tick is not None
        while not stop.wait(self._tick):
            with self._lock:
                if stop.is_set() or not self._live:
                    return
                if self._clock() - self._last >= self._gap:
                    self._refresh()

    def _write(self, text: str) -> None:
        if text:
            self._out.write(text)
            self._out.flush()

    # ------------------------------------------------------------ hand-over

    def _hand_over(self, *, redraw: bool = False) -> Renderer:
        """The real Renderer, from here on: the region erased, the queue printed, the
        open text adopted."""
        self._stop()
        real = self._real = self._make_real()
        real.adopt(self._splitter, self._clean, text_printed=self._text_printed,
                   printed=self._printed, redraw=redraw)
        self._splitter = None
        return real
