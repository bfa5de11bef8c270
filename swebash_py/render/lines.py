"""One-line renderables shared by the terminal and plain renderers."""

from __future__ import annotations

from rich.text import Text

from swebash_py.render.tools_view import ToolState
from swebash_py.render.transcript import UsageTally
from swebash_py.render.waiting import wait_text
from swebash_py.text.sanitize import neutralize, one_line

_THINK_STYLE = "dim italic"
_STOP_NOTES = {
    "length": "(the answer was cut off: the model hit its output token limit)",
    "max_iterations": "(stopped: too many tool rounds in one turn)",
}


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
    return Text(one_line(message, 500), style="dim")


def preview_lines(outcome: str, summary: str, *, full: bool) -> Text | None:
    """A command preview's outcome: its change list in plain output, one line live
    (the question showed the list)."""
    if outcome == "no-changes":
        return None
    head = {"applied": "changes applied", "discarded": "changes discarded",
            "over-bound": "preview stopped at its bound"}.get(outcome, outcome)
    lines = summary.splitlines()
    if not full:
        return Text(f"preview: {head} ({one_line(lines[0] if lines else '', 200)})",
                    style="dim")
    body = "\n".join(neutralize(line)[:500] for line in lines)
    return Text(f"preview: {head}\n{body}", style="dim")


def error_line(message: str) -> Text:
    return Text("Error: " + one_line(message, 500), style="red")


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
    note = _STOP_NOTES.get(reason)
    return Text(note, style="dim") if note else None
