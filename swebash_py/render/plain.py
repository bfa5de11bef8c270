"""Plain output for pipes, files and dumb terminals: the answer text as it arrives.

Answer text is written chunk by chunk (no markdown rendering, no live region),
neutralized (no escape sequences or control characters but newline and tab),
plus one final newline if it lacks one. Thinking is not shown (a pipe
wants the answer). Tool calls, results, approvals, notices and errors are short
uncoloured lines, on ``status`` (the same console unless given, e.g. stderr).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.text import Text

from swebash_py.events import (
    ApprovalEvent,
    BlockDelta,
    BlockStop,
    ErrorEvent,
    Notice,
    PreviewEvent,
    TurnComplete,
    TurnEvent,
    UsageEvent,
)
from swebash_py.render.lines import (
    error_line,
    notice_line,
    preview_lines,
    stop_reason_line,
    usage_line,
)
from swebash_py.render.tools_view import ToolState, approval_line, result_view, short_args
from swebash_py.render.transcript import UsageTally
from swebash_py.text.sanitize import StreamNeutralizer, one_line


class PlainRenderer:
    """Renders the turn event stream without terminal tricks."""

    def __init__(
        self, console: Console, *, status: Console | None = None, show_usage: bool = False,
        result_lines: int = 8,
    ) -> None:
        self.console = console
        self.status = status or console
        self.show_usage = show_usage
        self._result_lines = result_lines
        self._at_line_start = True
        self._args: dict[str, str] = {}
        self._clean = StreamNeutralizer()
        self._usage = UsageTally()

    def handle(self, event: TurnEvent) -> None:
        if isinstance(event, BlockDelta):
            if event.kind == "text" and event.text:
                self._write(self._clean.feed(event.text))
        elif isinstance(event, BlockStop):
            if event.kind == "text":
                self._write(self._clean.finish())
            self._on_stop(event)
        elif isinstance(event, ApprovalEvent):
            self._line(approval_line(event, self._args.get(event.call_id, "")))
        elif isinstance(event, PreviewEvent):
            self._line(preview_lines(event.outcome, event.summary, full=True))
        elif isinstance(event, UsageEvent):
            self._usage.add(event)
        elif isinstance(event, Notice):
            self._line(notice_line(event.message))
        elif isinstance(event, ErrorEvent):
            self._line(error_line(event.message))
        elif isinstance(event, TurnComplete):
            self.close()
            self._line(stop_reason_line(event.stop_reason))
            if self.show_usage:  # never chosen for a pipe (make_renderer), kept for tests
                self._line(usage_line(self._usage))
            self._usage = UsageTally()

    def _write(self, text: str) -> None:
        if text:
            self.console.file.write(text)
            self.console.file.flush()
            self._at_line_start = text.endswith("\n")

    def _on_stop(self, event: BlockStop) -> None:
        call_id = event.call_id or f"#{event.index}"
        if event.kind == "tool_use" and event.is_error:
            return  # cut off before its arguments completed: it never runs
        if event.kind == "tool_use":
            args = short_args(event.tool or "tool", event.input)
            self._args[call_id] = args
            self._line(Text(f"» {one_line(event.tool or 'tool', 80)}  {args}".rstrip()))
        elif event.kind == "tool_result":
            state = ToolState(call_id, event.tool or "tool", 0.0, args=self._args.pop(call_id, ""))
            state.status = "preparing"  # no timer in plain output
            self._line(result_view(state, event.content, is_error=event.is_error,
                                   display=event.display, now=0.0, max_lines=self._result_lines))

    def _line(self, text: Text | None) -> None:
        if text is None:
            return
        self._end_line()
        self.status.print(text, soft_wrap=True)

    def _end_line(self) -> None:
        if not self._at_line_start:
            self.console.file.write("\n")
            self.console.file.flush()
            self._at_line_start = True

    def close(self) -> None:
        self._write(self._clean.finish())
        self._end_line()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        self._end_line()
        yield
