"""A minimal Server-Sent Events reader: lines in, ``(event, data)`` pairs out.

Only ``event:`` and ``data:`` fields matter to model providers; comments,
``id:`` and ``retry:`` are skipped. Multi-line data is joined with ``\\n``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator


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
