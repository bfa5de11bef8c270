"""Server-Sent Events read as the WHATWG standard says ("event stream
interpretation", HTML section 9.2.6), the one SSE reader of the direct backend.

Bytes: UTF-8 whatever the content type claims, bad bytes replaced by U+FFFD,
one leading byte order mark skipped (a second one is part of the first field's
name, so that field is unknown). Lines end at CRLF, LF or CR only (never at
U+2028 and the like, which JSON may carry raw). A line is a field: up to the
first colon the name, after it the value less one leading space; no colon: the
whole line is the name and the value is empty; a leading colon: a comment.
``event`` names the next event, ``data`` adds a line to it, ``id`` sets the
last event id (unless it holds U+0000), ``retry`` (ASCII digits only) the
reconnection time; any other field is ignored, never an error. A blank line
dispatches the event, unless no ``data`` came (a block of ``id`` or ``retry``
alone dispatches nothing). A last event with no blank line after it is
discarded at the end of the body: a provider's stream ends by its own marker
(``[DONE]``, ``message_stop``) or a finish reason before that, and the wire
parser says "cut off" when neither came (``openai_wire``, ``anthropic_wire``).

We never reconnect (retries are the client's policy, ``provider/retry.py``), so
the id and retry are kept for the record only.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

LINE_BREAK = re.compile(r"\r\n|\r|\n")
DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Event:
    """One dispatched event: its type (``message`` unless named), its data, and
    the last event id in force when it was dispatched."""

    type: str
    data: str
    last_event_id: str = ""


async def text_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The lines of a UTF-8 body (one leading BOM skipped, bad bytes replaced),
    split where SSE splits them. A last line with no line end is yielded too:
    it cannot complete an event, but the not-a-stream check reads it."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
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


class Interpreter:
    """The standard's buffers, fed one line at a time."""

    def __init__(self) -> None:
        self.data: list[str] = []
        self.event_type = ""
        self.id_buffer = ""
        self.last_event_id = ""
        self.retry_ms: int | None = None

    def line(self, line: str) -> Event | None:
        """Take one line; the event a blank line dispatches, if any."""
        if not line:
            return self._dispatch()
        name, value = field(line)
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.event_type = value
        elif name == "id" and "\0" not in value:  # an id with U+0000 is ignored whole
            self.id_buffer = value
        elif name == "retry" and DIGITS.fullmatch(value):  # else ignored, as bogus
            self.retry_ms = int(value)
        return None  # a comment (name "") or a field we do not know

    def _dispatch(self) -> Event | None:
        self.last_event_id = self.id_buffer  # even when no data came
        data, event_type = self.data, self.event_type
        self.data, self.event_type = [], ""
        if not data:
            return None
        return Event(event_type or "message", "\n".join(data), self.last_event_id)


async def iter_events(lines: AsyncIterator[str]) -> AsyncIterator[Event]:
    """The events of ``lines``; what follows the last blank line is discarded."""
    interpreter = Interpreter()
    async for line in lines:
        event = interpreter.line(line)
        if event is not None:
            yield event


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """``(event type, data)`` for each event, as the wire parsers take them."""
    async for event in iter_events(lines):
        yield event.type, event.data
