"""Cap long text for the model: keep the head and the tail, say what was cut."""

from __future__ import annotations

_MARKER_ROOM = 90


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
