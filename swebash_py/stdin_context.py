"""Piped standard input as context for the question, capped with a note."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import BinaryIO

MAX_STDIN_CHARS = 200_000


@dataclass
class PipedInput:
    text: str
    total_chars: int

    @property
    def cut(self) -> bool:
        return self.total_chars > len(self.text)

    def note(self) -> str | None:
        if not self.cut:
            return None
        return (f"stdin was cut to {len(self.text):,} of {self.total_chars:,} characters "
                "(the start is kept)")


def read_piped(stream: BinaryIO | None = None, limit: int = MAX_STDIN_CHARS) -> PipedInput | None:
    """Read piped stdin (None when stdin is a terminal or absent)."""
    source = stream or getattr(sys.stdin, "buffer", None)
    if source is None or (stream is None and sys.stdin.isatty()):
        return None
    kept = source.read(limit * 4).decode("utf-8", errors="replace")
    total = len(kept)
    while chunk := source.read(1 << 20):
        total += len(chunk)  # bytes past the cap: counted, not kept
    if len(kept) > limit:
        return PipedInput(kept[:limit], total)
    return PipedInput(kept, total)


def compose_question(question: str, piped: PipedInput | None) -> str:
    """The user's question with the piped input attached."""
    if piped is None or not piped.text.strip():
        return question
    if not question:
        return piped.text
    return f"{question}\n\n<stdin>\n{piped.text.rstrip()}\n</stdin>"
