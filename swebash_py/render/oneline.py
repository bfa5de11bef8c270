"""A left-justified ``Text`` that fits on one line, rendered without ``Text.wrap``.

``Text.__rich_console__`` wraps every text: it splits it into lines, finds the
break positions, divides, strips and justifies each line. For a text without
newlines or tabs that fits in the width, all that leaves one copy padded with
spaces, so here that copy is made directly and rendered with rich's own
``join`` and ``render`` (the same spans, the same segments). Headings,
paragraphs and list items of a streamed answer are mostly such texts.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.text import Text

_NEW_LINE = Text("\n")


def one_line(console: Console, options: ConsoleOptions, text: Text) -> Iterable[Segment] | None:
    """What ``console.render(text, options)`` yields, or None when it needs wrapping
    (or is anything but a left-justified, wrapping, one-line text)."""
    justify = text.justify or options.justify or "default"
    overflow = text.overflow or options.overflow or "fold"
    plain = text.plain
    width = options.max_width
    if (justify != "left" or overflow == "ignore" or not plain.isprintable()
            or cell_len(plain) > width):
        return None
    line = text.copy()
    line.truncate(width, overflow=overflow, pad=True)
    return _NEW_LINE.join([line]).render(console, end=text.end)
