"""Cap long text for the model: keep the head and the tail, say what was cut."""

from __future__ import annotations

import re

_MARKER_ROOM = 90
# The markers this module and process/capture.py's Capture leave where they cut.
CUT_MARKER = re.compile(r"\n?\[\.\.\. [\d,]+ (?:bytes|characters) \(([\d,]+) lines\)"
                        r"(?: of output)? cut from the middle \.\.\.\]\n?")


def cap_middle(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else head + marker + tail."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - _MARKER_ROOM)
    head, tail = keep // 2, keep - keep // 2
    middle = text[head : len(text) - tail]
    marker = (f"\n[... {len(middle):,} characters ({middle.count(chr(10)):,} lines)"
              " cut from the middle ...]\n")
    return text[:head] + marker + (text[-tail:] if tail else "")


def split_cut(text: str) -> tuple[str, int]:
    """``text`` without its cut markers, and how many lines they say were cut
    (0: the text is whole)."""
    lines = 0

    def drop(match: re.Match[str]) -> str:
        nonlocal lines  # the "\n" left in its place ends a line the cut had begun
        lines += max(0, int(match.group(1).replace(",", "")) - 1)
        return "\n"

    return CUT_MARKER.sub(drop, text), lines
