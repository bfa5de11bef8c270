"""Piped standard input as context for the question, capped with a note.

Past the cap the head AND the tail are kept (for a log the end is what matters),
half the cap each, with a line between them saying how much was left out; the
user gets the same as a note on its own line. Memory stays bounded: the head is
kept, the tail rolls. Reading stops at ``MAX_READ_BYTES`` so an endless producer
(``yes``) cannot keep us from answering; the tail is then the last part read.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import BinaryIO

MAX_STDIN_CHARS = 200_000
MAX_READ_BYTES = 64 << 20  # then stop reading: `yes | ai ...` still answers at once


@dataclass
class PipedInput:
    text: str
    cut: bool = False
    head_chars: int = 0  # when cut: the characters kept from the start and from the end
    tail_chars: int = 0
    left_out_bytes: int = 0
    ended: bool = True  # False: reading stopped before the input ended

    def note(self) -> str | None:
        if not self.cut:
            return None
        stopped = "" if self.ended else f"; reading stopped after {MAX_READ_BYTES >> 20} MiB"
        return (f"stdin was cut: its first {self.head_chars:,} and last {self.tail_chars:,} "
                f"characters are kept, {self.left_out_bytes:,} bytes between them left out"
                f"{stopped}")


def read_piped(stream: BinaryIO | None = None, limit: int = MAX_STDIN_CHARS,
               max_read: int = MAX_READ_BYTES) -> PipedInput | None:
    """Read piped stdin: whole up to ``limit`` characters, else its head and tail
    (None when stdin is a terminal or absent)."""
    source = stream or getattr(sys.stdin, "buffer", None)
    if source is None or (stream is None and sys.stdin.isatty()):
        return None
    half = limit // 2
    fits = limit * 4  # at most 4 bytes a character: input this long may still be whole
    keep = half * 4
    head, tail = bytearray(), bytearray()  # the first ``fits`` bytes; the last ones after
    total, ended = 0, False
    while total < max_read:
        chunk = source.read(min(1 << 16, max_read - total))
        if not chunk:
            ended = True
            break
        total += len(chunk)
        room = max(0, fits + 1 - len(head))
        head.extend(chunk[:room])
        tail.extend(chunk[room:])
        if len(tail) > 2 * keep:
            del tail[:-keep]  # rolls: memory stays bounded
    if ended and not tail:
        text = head.decode("utf-8", errors="replace")
        if len(text) <= limit:
            return PipedInput(text)
    return _head_and_tail(bytes(head), bytes(head + tail)[-keep:], half, total, ended)


def _head_and_tail(head: bytes, end: bytes, half: int, total: int, ended: bool) -> PipedInput:
    """The first ``half`` characters of ``head`` and the last ``half`` of ``end`` (the
    last bytes read), and how many bytes were left out between them."""
    first = head.decode("utf-8", errors="replace")[:half]
    while end and (end[0] & 0xC0) == 0x80:  # start on a character, not inside one
        end = end[1:]
    last = end.decode("utf-8", errors="replace")[-half:]
    left_out = max(0, total - len(first.encode("utf-8", errors="replace"))
                   - len(last.encode("utf-8", errors="replace")))
    marker = (f"\n\n[… {left_out:,} bytes of stdin left out here: its first and last "
              f"{half:,} characters are kept …]\n\n")
    return PipedInput(first + marker + last, True, len(first), len(last), left_out, ended)


def compose_question(question: str, piped: PipedInput | None) -> str:
    """The user's question with the piped input attached."""
    if piped is None or not piped.text.strip():
        return question
    if not question:
        return piped.text
    return f"{question}\n\n<stdin>\n{piped.text.rstrip()}\n</stdin>"
