"""Tool calls on screen: live spinners with an output tail, then a compact result."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from swebash_py.events import ApprovalEvent
from swebash_py.render.diff import render_diff, render_lines
from swebash_py.render.words import approval_text, result_shape, shortened_note
from swebash_py.render.words import short_args as short_args  # where render.console finds it
from swebash_py.text.sanitize import StreamNeutralizer, one_line

if TYPE_CHECKING:
    from rich.spinner import Spinner

TAIL_LINES = 5
_PARTIAL_CAP = 2000


def _elapsed(seconds: float) -> str:
    return f"{seconds:.1f}s" if seconds < 60 else f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


@dataclass
class ToolState:
    """One tool call from the model's first fragment until its result is shown."""

    call_id: str
    tool: str
    started: float
    args: str = ""
    status: str = "preparing"  # preparing, queued, running, done
    ran_from: float | None = None
    ended: float | None = None
    asked: bool = False  # the user saw the question (its diff) and answered
    applied: bool = False  # a preview of it was applied (its result says so)
    paused: float = 0.0  # seconds a question was open while it ran: the user's, not its
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    partial: str = ""
    clean: StreamNeutralizer = field(default_factory=StreamNeutralizer, repr=False)

    def __post_init__(self) -> None:
        self.tool = one_line(self.tool, 80)  # the name comes from the model

    def add_output(self, chunk: str) -> None:
        text = self.partial + self.clean.feed(chunk)
        *complete, self.partial = text.split("\n")
        self.tail.extend(line for line in complete[-TAIL_LINES:])
        self.partial = self.partial[-_PARTIAL_CAP:]

    def elapsed(self, now: float) -> float:
        begin = self.ran_from if self.ran_from is not None else self.started
        return max(0.0, (self.ended if self.ended is not None else now) - begin - self.paused)

    def title(self, now: float, *, timer: bool = True) -> Text:
        text = Text()
        text.append(self.tool, style="bold")
        if self.args:
            text.append("  " + self.args)
        if timer and self.status != "preparing":
            text.append(f"  {_elapsed(self.elapsed(now))}", style="dim")
        if self.status == "queued":
            text.append("  queued", style="dim")
        return text


class ToolsView:
    """Live renderable: one spinner per unfinished tool, each with its output tail."""

    def __init__(self, tools: dict[str, ToolState], clock: Callable[[], float]) -> None:
        self._tools = tools
        self._clock = clock
        self._spinners: dict[str, Spinner] = {}

    def __bool__(self) -> bool:
        return bool(self._tools)

    def forget(self, call_id: str) -> None:
        self._spinners.pop(call_id, None)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.spinner import Spinner  # (and rich.table) only once a tool runs

        now = self._clock()
        parts: list[RenderableType] = []
        for state in self._tools.values():
            spinner = self._spinners.setdefault(state.call_id, Spinner("dots", style="cyan"))
            title = state.title(now)
            if state.status == "running":
                title.append(" · Ctrl-C to stop", style="dim")
            spinner.update(text=title)
            parts.append(spinner)
            lines = [*state.tail, state.partial] if state.partial else list(state.tail)
            for line in lines[-TAIL_LINES:]:
                parts.append(Text("  │ " + line, style="dim", no_wrap=True, overflow="ellipsis"))
        yield Group(*parts)


def result_view(
    state: ToolState,
    content: str,
    *,
    is_error: bool,
    display: str | None,
    now: float,
    max_lines: int = 8,
) -> Text:
    """What stays in scrollback once a tool finished (``words.result_shape``)."""
    shape = result_shape(content, is_error=is_error, display=display)
    if shape.error is not None:
        line = Text(style="red")
        line.append("✗ ", style="bold")
        line.append_text(state.title(now))
        line.append("  " + shape.error, style="red")
        return line
    out = Text()
    out.append("✓ " if shape.ok else "✗ ", style="bold green" if shape.ok else "bold red")
    out.append_text(state.title(now))
    shown = (render_diff(shape.body) if shape.diff
             else render_lines(shape.body, max_lines=max_lines, cut_lines=shape.cut))
    if shown:
        out.append("\n")
        out.append_text(shown)
    if shape.model_cut:
        out.append("\n  " + shortened_note(shape.model_cut), style="dim italic")
    return out


def approval_line(event: ApprovalEvent, args: str = "") -> Text | None:
    """``✓ allowed by rule run_command(git status)``; None when routine or denied."""
    words = approval_text(event, args)
    if words is None:
        return None  # routine, or a denial: the call's own result line says so, once
    allowed, remembered = words
    line = Text(allowed, style="green")
    if remembered:
        line.append(remembered, style="dim")
    return line
