"""Coloured unified diffs, and head/tail truncation of long outputs."""

from __future__ import annotations

from rich.text import Text

from swebash_py.render.words import diff_lines, hidden_text, looks_like_diff, output_lines

__all__ = ["DIFF_STYLES", "hidden_line", "looks_like_diff", "render_diff", "render_lines"]

DIFF_STYLES = {
    "+": "green",
    "-": "red",
    "@": "cyan",
    "header": "bold",
}


def _line_style(line: str) -> str | None:
    if line.startswith(("+++", "---", "diff ", "index ")):
        return DIFF_STYLES["header"]
    if line.startswith("@@"):
        return DIFF_STYLES["@"]
    if line.startswith("+"):
        return DIFF_STYLES["+"]
    if line.startswith("-"):
        return DIFF_STYLES["-"]
    return None


def hidden_line(count: int, indent: str = "  ") -> Text:
    return Text(hidden_text(count, indent), style="dim italic")


def render_diff(diff: str, *, max_lines: int = 60, indent: str = "  ") -> Text:
    """A unified diff as coloured ``Text`` (+ green, - red, @@ cyan), truncated."""
    head, hidden, tail = diff_lines(diff, max_lines)
    out = Text()
    for line in head:
        out.append_text(_diff_line(line, indent))
    if hidden:
        out.append_text(hidden_line(hidden, indent))
        out.append("\n")
    for line in tail:
        out.append_text(_diff_line(line, indent))
    out.rstrip()
    return out


def _diff_line(line: str, indent: str) -> Text:
    text = Text(indent)
    text.append(line, style=_line_style(line))
    text.append("\n")
    return text


def render_lines(body: str, *, max_lines: int = 8, indent: str = "  ", style: str = "dim",
                 cut_lines: int = 0) -> Text:
    """Untrusted output as dim indented lines, first/last lines around a hidden
    count (``cut_lines``: lines already cut from the middle of ``body``)."""
    head, hidden, tail = output_lines(body, max_lines, cut_lines)
    if not (head or hidden or tail):
        return Text()
    out = Text()
    for line in head:
        out.append(indent + line + "\n", style=style)
    if hidden:
        out.append_text(hidden_line(hidden, indent))
        out.append("\n")
    for line in tail:
        out.append(indent + line + "\n", style=style)
    out.rstrip()
    return out
