"""Piped standard input as context for the question, capped with a note."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import BinaryIO

MAX_STDIN_CHARS = 200_000


@dataclass
class PipedInput:
    text: str
    cut: bool = False

    def note(self) -> str | None:
        if not self.cut:
            return None
        return (f"stdin was cut to its first {len(self.text):,} characters "
                "(the rest was not read)")


def read_piped(stream: BinaryIO | None = None, limit: int = MAX_STDIN_CHARS) -> PipedInput | None:
    """Read piped stdin up to the cap (None when stdin is a terminal or absent).

    Reading stops at the cap: an endless producer (``yes``, ``tail -f``) must
    not keep us from answering, and the rest is not worth reading to count.
    """
    source = stream or getattr(sys.stdin, "buffer", None)
    if source is None or (stream is None and sys.stdin.isatty()):
        return None
    budget = limit * 4 + 1  # at most 4 bytes a character, and one to see if there is more
    raw = bytearray()
    while len(raw) < budget and (chunk := source.read(min(1 << 16, budget - len(raw)))):
        raw.extend(chunk)
    text = raw.decode("utf-8", errors="replace")
    cut = len(raw) >= budget or len(text) > limit
    return PipedInput(text[:limit], cut)


def compose_question(question: str, piped: PipedInput | None) -> str:
    """The user's question with the piped input attached."""
    if piped is None or not piped.text.strip():
        return question
    if not question:
        return piped.text
    return f"{question}\n\n<stdin>\n{piped.text.rstrip()}\n</stdin>"
