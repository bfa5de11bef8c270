"""A minimal Server-Sent Events reader: bytes to lines, lines to ``(event, data)``.

Lines are fields as the SSE specification defines them (``field``): a line
with no colon is a field name with an empty value, and a field we do not know
is ignored, never an error. Only ``event`` and ``data`` matter to model
providers; comments, ``id`` and ``retry`` are skipped. Multi-line data is
joined with ``\\n``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator

LINE_BREAK = re.compile(r"\r\n|\r|\n")


async def text_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The lines of a UTF-8 body (bad bytes replaced), split where SSE splits them:
    at CRLF, LF or CR only (not at U+2028 and the like, which JSON may carry raw)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    async for chunk in chunks:
        text = pending + decoder.decode(chunk)
        held = text.endswith("\r")  # maybe the first half of a CRLF split across chunks
        *lines, pending = LINE_BREAK.split(text[:-1] if held else text)
        if held:
            pending += "\r"
        for line in lines:
            yield line
    lines = LINE_BREAK.split(pending + decoder.decode(b"", final=True))
    if lines[-1] == "":
        lines.pop()
    for line in lines:
        yield line


def field(line: str) -> tuple[str, str]:
    """``(name, value)`` of a non-blank line, per the spec: up to the first colon
    the name, after it the value less one leading space; no colon: the whole line
    is the name and the value is empty. A comment (``:...``) has the name ""."""
    name, colon, value = line.partition(":")
    return name, (value[1:] if value.startswith(" ") else value) if colon else ""


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """Yield ``(event, data)`` for each event; ``event`` defaults to ``message``."""
    event = ""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield event or "message", "\n".join(data)
                data = []
            event = ""
            continue
        name, value = field(line)
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value.strip()
    if data:  # a last event without its blank line
        yield event or "message", "\n".join(data)
