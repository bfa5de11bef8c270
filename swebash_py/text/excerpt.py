"""A long text cut to its head and its tail, never to its head only.

What a question leaves out must not be where the danger is: a new file whose
line 81 is `curl … | sh` shown as its first 60 lines hides exactly that. The
one cut every question uses keeps both ends and says how many lines are
between. Stdlib only (the preview's plain summary uses it too).
"""

from __future__ import annotations


def head_tail(lines: list[str], max_lines: int) -> tuple[list[str], int, list[str]]:
    """Split ``lines`` into shown head, number hidden, shown tail."""
    if len(lines) <= max_lines:
        return lines, 0, []
    head = (max_lines + 1) // 2
    tail = max_lines - head
    return lines[:head], len(lines) - head - tail, lines[len(lines) - tail:] if tail else []


def between_line(first: int, hidden: int, indent: str = "") -> str:
    """The line standing for the ``hidden`` lines that begin at line ``first`` (1-based)."""
    last = first + hidden - 1
    return f"{indent}… lines {first}-{last} not shown ({hidden} lines) …"


def excerpt(lines: list[str], max_lines: int, indent: str = "") -> list[str]:
    """``lines`` whole when they fit in ``max_lines`` (at least 2), else the head,
    a line naming the lines left out, and the tail."""
    head, hidden, tail = head_tail(lines, max(2, max_lines - 1))
    if not hidden:
        return [indent + line for line in lines]
    return [*(indent + line for line in head), between_line(len(head) + 1, hidden, indent),
            *(indent + line for line in tail)]
