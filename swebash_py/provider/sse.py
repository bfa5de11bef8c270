"""A minimal Server-Sent Events reader: bytes to lines, lines to ``(event, data)``.

Only ``event:`` and ``data:`` fields matter to model providers; comments,
``id:`` and ``retry:`` are skipped. Multi-line data is joined with ``\\n``.
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
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
        elif line.startswith("event:"):
            event = line[6:].strip()
    if data:  # a last event without its blank line
        yield event or "message", "\n".join(data)
