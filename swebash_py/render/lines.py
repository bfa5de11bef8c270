"""One-line renderables shared by the terminal and plain renderers."""

from __future__ import annotations

from rich.text import Text

from swebash_py.render.tools_view import ToolState
from swebash_py.render.transcript import UsageTally
from swebash_py.render.waiting import wait_text
from swebash_py.render.words import error_text, notice_text, preview_text, stop_note
from swebash_py.text.sanitize import neutralize, one_line

_THINK_STYLE = "dim italic"


def thinking_line(text: str, seconds: float | None, *, full: bool) -> Text:
    """Live: ``thinking… <latest words>``; final: ``✻ thought for 2.3s · <first words>``."""
    flat = " ".join(neutralize(text).split())
    if seconds is None:
        tail = flat[-70:]
        return Text(f"thinking… {tail}", style=_THINK_STYLE, no_wrap=True, overflow="ellipsis")
    head = f"✻ thought for {seconds:.1f}s"
    if full:
        return Text(f"{head}\n{neutralize(text).strip()}", style=_THINK_STYLE)
    summary = one_line(flat, 70)
    line = f"{head} · {summary}" if summary else head
    return Text(line, style=_THINK_STYLE, no_wrap=True, overflow="ellipsis")


def notice_line(message: str) -> Text:
    return Text(notice_text(message), style="dim")


def preview_lines(outcome: str, summary: str, *, full: bool) -> Text | None:
    """A command preview's outcome: its change list in plain output, one line live
    (the question showed the list)."""
    text = preview_text(outcome, summary, full=full)
    return Text(text, style="dim") if text is not None else None


def error_line(message: str) -> Text:
    return Text(error_text(message), style="red")


def usage_line(usage: UsageTally) -> Text | None:
    """One dim line for the answer's requests added up (None before any)."""
    line = usage.line()
    return Text(line, style="dim") if line else None


def wait_line(seconds: float) -> Text:
    """The working indicator's words (the spinner is drawn beside them)."""
    return Text(wait_text(seconds), style="dim")


def cancelled_line(state: ToolState, now: float) -> Text:
    line = Text("✗ ", style="red")
    line.append_text(state.title(now))
    line.append("  cancelled", style="red")
    return line


def stop_reason_line(reason: str) -> Text | None:
    note = stop_note(reason)
    return Text(note, style="dim") if note else None
