"""Telling the user something is done while they look elsewhere.

When a turn that took longer than ``notify_after`` seconds ends, or a question
is waiting, and the terminal is known not to have focus, ring the bell or send
an OSC 9 desktop notification. Focus is known only from the terminal's own
focus reports (``CSI ? 1004 h``: it sends ``CSI I`` / ``CSI O``); with no
report seen we cannot tell, and stay quiet rather than ring for nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TextIO

Method = Literal["bell", "osc9"]
Kind = Literal["turn", "question"]

FOCUS_IN = b"\x1b[I"
FOCUS_OUT = b"\x1b[O"
ENABLE_FOCUS_REPORTS = "\x1b[?1004h"
DISABLE_FOCUS_REPORTS = "\x1b[?1004l"


class FocusTracker:
    """The terminal's focus as its reports say: True, False, or None (unknown)."""

    def __init__(self) -> None:
        self.focused: bool | None = None
        self._partial = b""

    def feed(self, data: bytes) -> bytes:
        """Take the focus reports out of ``data``; returns the other bytes (typed keys)."""
        data, self._partial = self._partial + data, b""
        out = bytearray()
        i = 0
        while i < len(data):
            chunk = data[i:i + 3]
            if chunk in (FOCUS_IN, FOCUS_OUT):
                self.focused = chunk == FOCUS_IN
                i += 3
            elif FOCUS_IN.startswith(chunk) and len(chunk) < 3 and i + len(chunk) == len(data):
                self._partial = chunk  # a report cut between two reads
                break
            else:
                out.append(data[i])
                i += 1
        return bytes(out)


def should_notify(kind: Kind, elapsed: float, threshold: float,
                  focused: bool | None, enabled: bool = True) -> bool:
    """Whether to ring: enabled, the terminal known to be unfocused, and for a
    finished turn only when it took at least ``threshold`` seconds."""
    if not enabled or focused is not False:
        return False
    return kind == "question" or elapsed >= threshold


def signal_bytes(method: Method, message: str) -> str:
    """What to write: BEL, or OSC 9 with the message (terminals show it as a
    desktop notification); the message is kept to printable characters."""
    if method == "bell":
        return "\a"
    clean = "".join(c for c in message if c.isprintable() and c not in "\x1b\x07\x9c")
    return f"\x1b]9;{clean[:200]}\x07"


@dataclass
class Notifier:
    """Decides and writes; ``out`` is the terminal."""

    out: TextIO
    tracker: FocusTracker
    enabled: bool = True
    threshold: float = 10.0
    method: Method = "bell"

    def turn_ended(self, elapsed: float) -> bool:
        return self._maybe("turn", elapsed, "swebash: the answer is ready")

    def question_waiting(self) -> bool:
        return self._maybe("question", 0.0, "swebash: a question is waiting for you")

    def _maybe(self, kind: Kind, elapsed: float, message: str) -> bool:
        if not should_notify(kind, elapsed, self.threshold, self.tracker.focused, self.enabled):
            return False
        self.out.write(signal_bytes(self.method, message))
        self.out.flush()
        return True
