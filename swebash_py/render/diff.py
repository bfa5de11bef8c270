"""Coloured unified diffs, and head/tail truncation of long outputs."""

from __future__ import annotations

import re

from rich.text import Text

from swebash_py.text.excerpt import head_tail
from swebash_py.text.sanitize import neutralize

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.MULTILINE)

DIFF_STYLES = {
    "+": "green",
    "-": "red",
    "@": "cyan",
    "header": "bold",
}


def looks_like_diff(text: str | None) -> bool:
    """True for unified-diff text (a ``@@ -a,b +c,d @@`` hunk header is required)."""
    return bool(text) and _HUNK.search(text or "") is not None


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
    return Text(f"{indent}… {count} lines hidden …", style="dim italic")


def render_diff(diff: str, *, max_lines: int = 60, indent: str = "  ") -> Text:
    """A unified diff as coloured ``Text`` (+ green, - red, @@ cyan), truncated."""
    lines = neutralize(diff).rstrip("\n").split("\n")
    head, hidden, tail = head_tail(lines, max_lines)
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
    lines = neutralize(body).rstrip("\n").split("\n")
    if lines == [""]:
        return Text()
    head, hidden, tail = head_tail(lines, max_lines)
    if cut_lines and not hidden:
        head, tail = lines[:(len(lines) + 1) // 2], lines[(len(lines) + 1) // 2:]
    hidden += cut_lines
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
