"""Untrusted text shown for a decision (a command, a path), with nothing hidden.

Unlike ``text.sanitize.neutralize`` (which removes), this makes every
control character, escape sequence, bidi override and zero-width character
*visible*, so what the user approves is what runs: ESC shows as ``\\x1b``,
other C0/C1 controls as ``\\xNN`` (``\\r`` as ``\\r``), formatting characters
as ``<U+202E>``. Newlines and tabs stay: a multi-line command is shown whole.
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 (but \t \n), DEL, C1
    "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _show(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch == "\r":
        return "\\r"
    if ord(ch) <= 0x9F:
        return f"\\x{ord(ch):02x}"
    return f"<U+{ord(ch):04X}>"


def make_visible(text: str) -> str:
    """``text`` with every invisible or terminal-controlling character spelled out."""
    return _INVISIBLE.sub(_show, text) if text else text


def has_hidden(text: str) -> bool:
    """Whether ``make_visible`` would change ``text``."""
    return bool(_INVISIBLE.search(text))
