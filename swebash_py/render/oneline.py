"""A left-justified ``Text`` that fits on one line, rendered without ``Text.wrap``.

``Text.__rich_console__`` wraps every text: it splits it into lines, finds the
break positions, divides, strips and justifies each line. For a text without
newlines or tabs that fits in the width, all that leaves one copy padded with
spaces, joined with ``Text("\n").join`` and rendered. Here the joined text is
built directly (the padded plain text; the text's style as a span over all of
it, then its spans, as ``join`` lays them out) and rendered by rich's own
``render`` (the same segments). Headings, paragraphs and list items of a
streamed answer are mostly such texts.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.text import Span, Text


def one_line(console: Console, options: ConsoleOptions, text: Text) -> Iterable[Segment] | None:
    """What ``console.render(text, options)`` yields, or None when it needs wrapping
    (or is anything but a left-justified, wrapping, one-line text)."""
    justify = text.justify or options.justify or "default"
    overflow = text.overflow or options.overflow or "fold"
    plain = text.plain
    width = options.max_width
    if justify != "left" or overflow == "ignore" or not plain.isprintable():
        return None
    cells = cell_len(plain)
    if cells > width:
        return None
    line = Text(plain + " " * (width - cells))  # copy + truncate(pad=True)
    spans = line.spans  # join([copy]): the copy's style over it all, then its spans
    if text.style:
        spans.append(Span(0, len(line), text.style))
    spans.extend(text.spans)
    return line.render(console, end=text.end)
