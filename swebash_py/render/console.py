"""The terminal renderer: turn events in, rich output out.

Answer text streams through ``MarkdownStream`` (settled blocks rendered once,
printed with the next frame; the unsettled tail previewed); thinking, the
preview and running tools share one transient ``LiveArea``, redrawn at most
``max_fps`` times a second, never per chunk; everything final goes to normal
scrollback. Every untrusted string is neutralized (``sanitize``) before display.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from rich.console import Console, RenderableType
from rich.text import Text

from swebash_py.events import (
    ApprovalEvent,
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorEvent,
    Notice,
    PreviewEvent,
    ToolProgress,
    TurnComplete,
    TurnEvent,
    TurnStart,
    UsageEvent,
)
from swebash_py.render.diff import looks_like_diff
from swebash_py.render.lines import (
    cancelled_line,
    error_line,
    notice_line,
    preview_lines,
    stop_reason_line,
    thinking_line,
    usage_line,
    wait_line,
)
from swebash_py.render.live import LiveArea
from swebash_py.render.markdown_stream import MarkdownStream
from swebash_py.render.tools_view import (
    ToolState,
    ToolsView,
    approval_line,
    result_view,
    short_args,
)
from swebash_py.render.transcript import SandboxNotes, UsageTally

ThinkingMode = Literal["compact", "full", "hidden"]


class Renderer:
    """Renders the turn event stream on a terminal ``Console``."""

    def __init__(
        self,
        console: Console,
        *,
        show_usage: bool = False,
        thinking: ThinkingMode = "compact",
        clock: Callable[[], float] = time.monotonic,
        max_fps: float = 20.0,
        tick: float | None = 0.1,
        code_theme: str = "monokai",
        result_lines: int = 8,
        wait_from: float | None = None,
    ) -> None:
        self.console = console
        self.show_usage = show_usage
        self.thinking = thinking
        self._clock = clock
        self._code_theme = code_theme
        self._result_lines = result_lines
        self._lock = threading.RLock()
        self._tools: dict[str, ToolState] = {}
        self._tools_view = ToolsView(self._tools, clock)
        self._text: MarkdownStream | None = None
        self._thought: list[str] | None = None
        self._thought_started = 0.0
        self._printed = False  # anything printed in this turn (for spacing)
        # The working indicator: since when the model has been awaited (None: it is not).
        # ``wait_from``: the first wait began before this renderer existed (render.late).
        self._wait_from = wait_from
        self._waiting_from: float | None = None
        self._wait_spinner: RenderableType | None = None
        self._usage = UsageTally()
        self._area = LiveArea(
            console, self._live_parts, self._lock, clock, max_fps=max_fps, tick=tick,
            prepare=self._settle_text,
        )

    # ------------------------------------------------------------ public

    def handle(self, event: TurnEvent) -> None:
        """Render one turn event."""
        with self._lock:
            if isinstance(event, BlockDelta):  # the hot path first
                self._on_delta(event)
            elif isinstance(event, BlockStart):
                self._on_start(event)
            elif isinstance(event, BlockStop):
                self._on_stop(event)
            elif isinstance(event, ToolProgress):
                self._on_progress(event)
            elif isinstance(event, ApprovalEvent):
                state = self._tools.get(event.call_id)
                if state is not None and event.by == "user":
                    state.started = self._clock()  # the user's thinking time is not the tool's
                    state.asked = True
                if not self._said_by_the_result(event, state):
                    self._print(approval_line(event, state.args if state else ""))
            elif isinstance(event, PreviewEvent):
                self._on_preview(event)
            elif isinstance(event, UsageEvent):
                self._usage.add(event)
            elif isinstance(event, Notice):
                self._print(notice_line(event.message))
            elif isinstance(event, ErrorEvent):
                self._print(error_line(event.message))
            elif isinstance(event, TurnStart):
                self._printed = False
                self._usage = UsageTally()
                if self._waiting_from is None:  # else: waiting since ``waiting()``
                    self._wait(self._wait_from)
                self._wait_from = None
            elif isinstance(event, TurnComplete):
                self.close()
                self._print(stop_reason_line(event.stop_reason))
                if self.show_usage:
                    self._print(usage_line(self._usage))

    def waiting(self) -> None:
        """The question is sent: show the working indicator now (the turn's first
        event may come later, after the front-end's own preparations)."""
        with self._lock:
            if self._waiting_from is None:
                self._wait(self._wait_from)

    def close(self) -> None:
        """Flush open text, note unfinished tools, and erase the live region."""
        with self._lock:
            self._waiting_from = None
            self._end_text()
            self._end_thinking()
            now = self._clock()
            for state in list(self._tools.values()):
                self._print(cancelled_line(state, now))
            self._tools.clear()
            self._area.stop()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        """Hide live regions while something else uses the terminal (a question:
        the time it is open is the user's, not the running tools')."""
        asked = self._clock()
        try:
            with self._area.suspend():
                yield
        finally:
            with self._lock:
                paused = self._clock() - asked
                for state in self._tools.values():
                    if state.ran_from is not None and state.ended is None:
                        state.paused += paused

    # ------------------------------------------------------------ blocks

    def _on_start(self, event: BlockStart) -> None:
        self._waiting_from = None  # the model answers
        if event.kind == "text":
            self._begin_text()
        elif event.kind == "thinking":
            self._thought, self._thought_started = [], self._clock()
            self._area.update(force=True)
        elif event.kind == "tool_use":
            call_id = event.call_id or f"#{event.index}"
            self._tools[call_id] = ToolState(call_id, event.tool or "tool", self._clock())
            self._area.update(force=True)

    def _on_delta(self, event: BlockDelta) -> None:
        self._waiting_from = None
        if event.kind == "text":
            stream = self._text or self._begin_text()
            stream.feed(event.text)
            self._area.update()
        elif event.kind == "thinking":
            if self._thought is None:
                self._thought, self._thought_started = [], self._clock()
            self._thought.append(event.text)
            self._area.update()

    def _on_stop(self, event: BlockStop) -> None:
        if event.kind == "text":
            self._end_text()
        elif event.kind == "thinking":
            self._end_thinking()
        elif event.kind == "tool_use":
            state = self._tool(event.call_id or f"#{event.index}", event.tool)
            state.args = short_args(state.tool, event.input)
        elif event.kind == "tool_result":
            self._finish_tool(event)
            if not self._tools and self._text is None and self._thought is None:
                self._wait(None)  # the results go back to the model: waiting again
        self._settle_area()

    def _begin_text(self) -> MarkdownStream:
        self._end_text()
        if self._printed:
            self._area.print()
        self._text = MarkdownStream(self._area.queue, code_theme=self._code_theme)
        return self._text

    def _end_text(self) -> None:
        stream, self._text = self._text, None
        if stream is not None:
            stream.finish()
            self._printed = self._printed or stream.printed

    def _end_thinking(self) -> None:
        thought, self._thought = self._thought, None
        if thought is None or self.thinking == "hidden":
            return
        seconds = self._clock() - self._thought_started
        self._print(thinking_line("".join(thought), seconds, full=self.thinking == "full"))

    # ------------------------------------------------------------ tools

    def _tool(self, call_id: str, tool: str | None) -> ToolState:
        state = self._tools.get(call_id)
        if state is None:
            state = self._tools[call_id] = ToolState(call_id, tool or "tool", self._clock())
        return state

    def _on_progress(self, event: ToolProgress) -> None:
        state = self._tool(event.call_id, event.tool)
        if event.status == "output":
            state.add_output(event.output)
            self._area.update()
            return
        if event.status == "running":
            state.ran_from = self._clock()
        elif event.status == "done" and state.ended is None:
            state.ended = self._clock()
        state.status = event.status
        self._area.update(force=True)

    def _finish_tool(self, event: BlockStop) -> None:
        call_id = event.call_id or f"#{event.index}"
        state = self._tools.pop(call_id, None) or self._tool(call_id, event.tool)
        self._tools.pop(call_id, None)
        self._tools_view.forget(call_id)
        now = self._clock()
        if state.ended is None:
            state.ended = now
        display = event.display
        if state.asked and display and looks_like_diff(display):  # seen in the question
            display = event.content.split("\n", 1)[0]
        display = SandboxNotes.quiet(display if display is not None else event.content)
        view = result_view(
            state, event.content, is_error=event.is_error, display=display,
            now=now, max_lines=self._result_lines,
        )
        self._print(view)

    def _on_preview(self, event: PreviewEvent) -> None:
        state = self._tools.get(event.call_id)
        if event.outcome == "applied" and state is not None:
            state.applied = True  # the result's own "[changes applied: ...]" line says it
            return
        self._print(preview_lines(event.outcome, event.summary, full=False))

    @staticmethod
    def _said_by_the_result(event: ApprovalEvent, state: ToolState | None) -> bool:
        """A preview the user applied: the result line says so, the "allowed" line
        would say it twice (unless it remembered a rule, which is news)."""
        return (state is not None and state.applied and event.by == "user"
                and "remembered " not in (event.reason or ""))

    # ------------------------------------------------------------ waiting

    def _wait(self, since: float | None) -> None:
        """Show the working indicator: the model is awaited from ``since`` (now)."""
        self._waiting_from = self._clock() if since is None else since
        self._area.update(force=True)

    def _wait_part(self) -> RenderableType:
        from rich.spinner import Spinner

        assert self._waiting_from is not None
        text = wait_line(self._clock() - self._waiting_from)
        if not isinstance(self._wait_spinner, Spinner):
            self._wait_spinner = Spinner("dots", style="cyan")
        self._wait_spinner.update(text=text)
        return self._wait_spinner

    # ------------------------------------------------------------ live region

    def _live_parts(self) -> list[RenderableType]:
        with self._lock:
            parts: list[RenderableType] = []
            if self._thought is not None and self.thinking != "hidden":
                parts.append(thinking_line("".join(self._thought[-64:]), None, full=False))
            if self._text is not None and self._text.pending:
                parts.append(self._text.preview())
            if self._tools:
                parts.append(self._tools_view)
            if self._waiting_from is not None and not parts:
                parts.append(self._wait_part())
            return parts

    def _settle_text(self) -> None:
        if self._text is not None:
            self._text.settle()

    def _settle_area(self) -> None:
        if (self._thought is None and self._text is None and not self._tools
                and self._waiting_from is None):
            self._area.stop()
        else:
            self._area.update(force=True)

    def _print(self, line: Text | None) -> None:
        if line is not None:
            self._area.print(line)
            self._printed = True
