"""A Markdown table drawn as rich's ``Markdown`` draws it, without rich's ``Table``.

rich's ``TableElement`` yields ``Table(box=SIMPLE, pad_edge=False, show_edge=True,
collapse_padding=True, style="markdown.table.border")``: every cell is measured,
wrapped in a ``Padding``, rendered with ``render_lines``, restyled, cropped and
shaped, then joined with the box's borders. When every cell is one printable line
and the table fits the width, that all reduces to: column widths of the widest
cell plus one column of padding (none after the last column), each cell's text
justified in its column as ``Text.wrap`` justifies it and rendered by rich's own
``Text.render``, the header row in ``table.header`` over ``markdown.table.header``,
and the box's rows in the border style. Anything else is left to ``Table``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

from swebash_py.render.tokens import Tok as Token

_NULL = Style.null()
_LINE = Segment.line()
HEADER = "markdown.table.header"


class Cell(NamedTuple):
    """One cell's text (its spans as ``TableDataElement`` appends them) and justify."""

    plain: str
    spans: list[Span]
    justify: str


def justify_of(token: Token) -> str:
    """The justify ``TableDataElement.create`` reads from a ``th``/``td`` token."""
    style = str(token.attrs.get("style")) or ""
    for method in ("right", "center", "left"):
        if f"text-align:{method}" in style:
            return method
    return "default"


def make_cell(runs: Sequence[tuple[str, Style]], justify: str, header: bool) -> Cell | None:
    """The cell of these (piece, style) runs, or None when it is not one printable
    line (or would be stripped by right or centre justification)."""
    spans: list[Span] = []
    offset = 0
    for piece, style in runs:
        if piece and style:
            spans.append(Span(offset, offset + len(piece), style))
        offset += len(piece)
    plain = "".join(piece for piece, _ in runs)
    if not plain.isprintable() or (justify in ("right", "center") and plain != plain.rstrip()):
        return None
    if header and plain:
        spans.append(Span(0, len(plain), HEADER))  # ``heading.stylize(...)``
    return Cell(plain, spans, justify)


def table_segments(console: Console, options: ConsoleOptions,
                   rows: Sequence[Sequence[Cell]]) -> list[Segment] | None:
    """The table's segments (the header row first), or None when it does not fit."""
    columns = len(rows[0])
    if not columns or any(len(row) != columns for row in rows):
        return None
    pads = [1] * (columns - 1) + [0]  # collapsed padding, none at the edges
    widths = [max(cell_len(row[c].plain) + pads[c] for row in rows) or 1
              for c in range(columns)]
    if sum(widths) + 2 + columns - 1 > options.max_width or any(
            width - pad < 1 for width, pad in zip(widths, pads, strict=True)):
        return None
    border = console.get_style("markdown.table.border") + console.get_style("")
    header_style = console.get_style("table.header") + console.get_style("")
    frame = box.SIMPLE.substitute(options, safe=console.safe_box)
    edges = [(Segment(left, border), Segment(right, border), Segment(divider, border))
             for left, right, divider in ((frame.head_left, frame.head_right,
                                           frame.head_vertical),
                                          (frame.mid_left, frame.mid_right, frame.mid_vertical),
                                          (frame.foot_left, frame.foot_right,
                                           frame.foot_vertical))]
    out = [Segment(frame.get_top(widths), border), _LINE]
    for index, row in enumerate(rows):
        left, right, divider = edges[0 if index == 0 else (2 if index == len(rows) - 1 else 1)]
        out.append(left)
        for c, cell in enumerate(row):
            if c:
                out.append(divider)
            line = _cell_line(console, cell, widths[c] - pads[c], pads[c])
            if index == 0 and header_style:
                line = [Segment(text, header_style + style) for text, style, _ in line]
            out.extend(line)
        out.append(right)
        out.append(_LINE)
        if index == 0:
            out.append(Segment(frame.get_row(widths, "head", edge=True), border))
            out.append(_LINE)
    out.append(Segment(frame.get_bottom(widths), border))
    out.append(_LINE)
    return out


def _cell_line(console: Console, cell: Cell, width: int, pad: int) -> list[Segment]:
    """The cell's line as ``Padding(text, (0, pad, 0, 0))`` renders it ``width + pad`` wide."""
    plain, spans = cell.plain, cell.spans
    room = width - cell_len(plain)
    if cell.justify == "left":  # ``truncate(pad=True)``
        plain += " " * room
    elif cell.justify in ("right", "center"):  # ``pad_left`` (then ``pad_right``)
        before = room if cell.justify == "right" else room // 2
        if before:
            spans = [Span(start + before, end + before, style) for start, end, style in spans]
        plain = " " * before + plain + " " * (room - before)
    line = list(Text(plain, spans=spans).render(console, end=""))
    if cell.justify == "default" and room:
        line.append(Segment(" " * room, _NULL))  # ``render_lines(pad=True)``
    if pad:
        line.append(Segment(" " * pad, _NULL))
    return line
