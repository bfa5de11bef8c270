"""Plain output for pipes, files and dumb terminals: the answer text as it arrives.

Answer text is written chunk by chunk (no markdown rendering, no live region),
neutralized (no escape sequences or control characters but newline and tab),
plus one final newline if it lacks one. Thinking is not shown (a pipe
wants the answer). Tool calls, results, approvals, notices and errors are short
uncoloured lines, on ``status`` (the same stream unless given, e.g. stderr).

Stdlib only: a piped one-shot never imports rich (start-up and memory a pipe
does not use). The words come from ``render.words``, which the terminal
renderer styles, so both say the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

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
from swebash_py.render.transcript import UsageTally
from swebash_py.render.words import (
    approval_text,
    diff_lines,
    error_text,
    hidden_text,
    notice_text,
    output_lines,
    preview_text,
    result_shape,
    short_args,
    shortened_note,
    stop_note,
)
from swebash_py.text.sanitize import StreamNeutralizer, one_line

INDENT = "  "


class PlainRenderer:
    """Renders the turn event stream without terminal tricks, to text streams."""

    def __init__(self, out: IO[str], *, status: IO[str] | None = None,
                 show_usage: bool = False, result_lines: int = 8) -> None:
        self.out = out
        self.status = status or out
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
            words = approval_text(event, self._args.get(event.call_id, ""))
            self._line("".join(words) if words else None)
        elif isinstance(event, PreviewEvent):
            self._line(preview_text(event.outcome, event.summary, full=True))
        elif isinstance(event, UsageEvent):
            self._usage.add(event)
        elif isinstance(event, Notice):
            self._line(notice_text(event.message))
        elif isinstance(event, ErrorEvent):
            self._line(error_text(event.message))
        elif isinstance(event, TurnComplete):
            self.close()
            self._line(stop_note(event.stop_reason))
            if self.show_usage:  # never chosen for a pipe (make_renderer), kept for tests
                self._line(self._usage.line())
            self._usage = UsageTally()

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._at_line_start = text.endswith("\n")

    def _on_stop(self, event: BlockStop) -> None:
        call_id = event.call_id or f"#{event.index}"
        if event.kind == "tool_use" and event.is_error:
            return  # cut off before its arguments completed: it never runs
        tool = one_line(event.tool or "tool", 80)  # the name comes from the model
        if event.kind == "tool_use":
            args = short_args(tool, event.input)
            self._args[call_id] = args
            self._line(f"» {tool}  {args}".rstrip())
        elif event.kind == "tool_result":
            title = f"{tool}  {args}" if (args := self._args.pop(call_id, "")) else tool
            self._line(result_text(title, event.content, is_error=event.is_error,
                                   display=event.display, max_lines=self._result_lines))

    def _line(self, text: str | None) -> None:
        if text is None:
            return
        self._end_line()
        self.status.write(text + "\n")
        self.status.flush()

    def _end_line(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True

    def close(self) -> None:
        self._write(self._clean.finish())
        self._end_line()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        self._end_line()
        yield


def result_text(title: str, content: str, *, is_error: bool, display: str | None,
                max_lines: int) -> str:
    """What a finished tool leaves (``words.result_shape``, as the terminal shows it):
    ``✓``/``✗``, the call, and its output's first and last lines."""
    shape = result_shape(content, is_error=is_error, display=display)
    if shape.error is not None:
        return f"✗ {title}  {shape.error}"
    mark = "✓" if shape.ok else "✗"
    shown = (diff_lines(shape.body, 60) if shape.diff
             else output_lines(shape.body, max_lines, shape.cut))
    text = _with_body(f"{mark} {title}", shown)
    return f"{text}\n{INDENT}{shortened_note(shape.model_cut)}" if shape.model_cut else text


def _with_body(head: str, parts: tuple[list[str], int, list[str]]) -> str:
    shown, hidden, tail = parts
    lines = [INDENT + line for line in shown]
    if hidden:
        lines.append(hidden_text(hidden, INDENT))
    lines += [INDENT + line for line in tail]
    body = "\n".join(lines).rstrip()
    return f"{head}\n{body}" if body else head
