"""Make tool output safe to show in a terminal.

Tool output is untrusted: it could clear the screen, retitle the window, move
the cursor up to overwrite an approval question, or hide text with bidi
overrides. ``neutralize`` removes every escape sequence and control character
except newline and tab, and turns carriage returns into newlines so nothing can
overwrite a line. Show the result only through ``rich.text.Text`` (never as
markup), so ``[red]`` in tool output stays literal.
"""

from __future__ import annotations

import re

# ESC [ params intermediates final  |  8-bit CSI
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
# ESC ] ... (BEL | ESC \ | 8-bit ST), also DCS/SOS/PM/APC strings; unterminated ones run to the end
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)"
# Any other two-byte ESC sequence (ESC c reset, ESC 7/8 save/restore cursor, ...)
_ESC = r"\x1b[ -~]?"
_SEQUENCE = re.compile(f"{_STRING}|{_CSI}|{_ESC}", re.DOTALL)
# C0 except \t \n, DEL, C1, and bidi / zero-width formatting that can disguise text
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def neutralize(text: str) -> str:
    """``text`` without escape sequences or control characters; ``\\r`` becomes ``\\n``."""
    if not text:
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text or _has_c1(text):
        text = _SEQUENCE.sub("", text)
    return _CONTROL.sub("", text)


def _has_c1(text: str) -> bool:
    return any("\x80" <= ch <= "\x9f" for ch in text) if not text.isascii() else False


def one_line(text: str, limit: int = 80) -> str:
    """A neutralized single-line summary of ``text``, cut to ``limit`` characters."""
    flat = " ".join(neutralize(text).split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
