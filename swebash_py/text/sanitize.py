"""Make untrusted text safe to show in a terminal.

Model text, tool output, file names and provider error messages are untrusted:
they could clear the screen, retitle the window, write the clipboard (OSC 52),
move the cursor up to overwrite an approval question, or hide text with bidi
overrides. ``neutralize`` removes every escape sequence (CSI, OSC, DCS, SOS, PM,
APC, 7- and 8-bit) and control character except newline and tab, and turns
carriage returns into newlines so nothing can overwrite a line. Show the result
only through ``rich.text.Text`` or Markdown (never as rich markup), so ``[red]``
stays literal. ``StreamNeutralizer`` applies it to a stream of chunks: once per
chunk, holding back a sequence (or ``\r``) that a chunk boundary cut in two.
"""

from __future__ import annotations

import re
from functools import cache

# ESC [ params intermediates final  |  8-bit CSI
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
# ESC ] ... (BEL | ESC \ | 8-bit ST), also DCS/SOS/PM/APC strings; unterminated ones run to the end
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)"
# Any other ESC sequence: intermediates, then a final byte (ESC c, ESC 7, ESC ( B, ...)
_ESC = r"\x1b[ -/]*[0-~]?"
_SEQUENCE = f"{_STRING}|{_CSI}|{_ESC}"  # compiled at the first text holding an escape
# C0 except \t \n, DEL, C1, and bidi / zero-width formatting that can disguise text
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# A sequence that is whole: a terminated string, a CSI with its final byte, or ESC + final.
_WHOLE = (
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c)"
    # ESC + final byte, but not one that opens a CSI or a string ([ ] P X ^ _)
    f"|{_CSI}|\x1b(?:[ -/]+[0-~]|[0-OQ-WYZ\\\\`-~])")
_INTRODUCERS = "\x1b\x90\x98\x9b\x9d\x9e\x9f"
_HOLD_MAX = 4096  # an unfinished sequence longer than this is released (and removed)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """``_SEQUENCE`` or ``_WHOLE``, compiled when a text first holds an escape (most
    answers hold none)."""
    return re.compile(pattern, re.DOTALL)


def neutralize(text: str) -> str:
    """``text`` without escape sequences or control characters; ``\\r`` becomes ``\\n``."""
    if not text or _CONTROL.search(text) is None:
        return text  # the common case: one scan, no copy
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text or _has_c1(text):
        text = _compiled(_SEQUENCE).sub("", text)
    return _CONTROL.sub("", text)


def _has_c1(text: str) -> bool:
    return any("\x80" <= ch <= "\x9f" for ch in text) if not text.isascii() else False


def one_line(text: str, limit: int = 80) -> str:
    """A neutralized single-line summary of ``text``, cut to ``limit`` characters."""
    flat = " ".join(neutralize(text).split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


class StreamNeutralizer:
    """``neutralize`` for text that arrives in chunks (a streamed answer, command output).

    A chunk may end inside an escape sequence or between ``\\r`` and ``\\n``; that
    tail is held back and neutralized with the next chunk, so the sequence is
    removed whole and ``\\r\\n`` stays one line break. Costs one scan per chunk.
    """

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = self._held + chunk if self._held else chunk
        self._held = ""
        cut = _unfinished(text)
        if cut < len(text):
            text, self._held = text[:cut], text[cut:]
        return neutralize(text)

    def finish(self) -> str:
        """What is still held back, neutralized (call at the end of the stream)."""
        held, self._held = self._held, ""
        return neutralize(held)


def _unfinished(text: str) -> int:
    """Where an unfinished sequence or a final ``\\r`` starts in ``text``; else ``len(text)``."""
    end = len(text)
    if text.endswith("\r"):
        end -= 1
    if "\x1b" not in text and (text.isascii() or not any(c in text for c in _INTRODUCERS)):
        return end
    start = max(text.rfind(c) for c in _INTRODUCERS)
    if len(text) - start > _HOLD_MAX:
        return end
    whole = _compiled(_WHOLE).match(text, start)
    return end if whole else start
