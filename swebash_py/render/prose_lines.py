"""Prose as rich draws it, without rich: the lines ``prose_view.Prose`` renders.

For paragraphs of characters one cell wide (``drawable``: rich's own known
single-cell ranges, plus the dashes, quotes and ellipsis of General Punctuation,
one cell in every Unicode version rich knows; a test checks it): each paragraph
is what ``rich.text.Text(para, justify="left")`` renders at a width, i.e.
``Text.wrap`` with overflow ``fold`` (``rich._wrap.divide_line`` ported as it is,
then ``rstrip_end``, then left justification: cropped or padded with spaces to
the width), paragraphs one empty line apart. Tests compare the result with
rich's own rendering byte for byte. Stdlib only (``cli.tty_text``).
"""

from __future__ import annotations

import re
from itertools import pairwise

# Not drawn here: any character outside rich's single-cell ranges (rich.cells
# _SINGLE_CELL_UNICODE_RANGES) and U+2010-U+2027 but a newline.
_NOT_ONE_CELL = re.compile("[^\n\x20-\x7e\xa0-\xac\xae-\u02ff\u0370-\u0482"
                           "\u2010-\u2027\u2500-\u25fc\u2800-\u28ff]")
_WORD = re.compile(r"\s*\S+\s*")  # rich._wrap.re_word
_TRAILING_SPACE = re.compile(r"\s+$")  # rich.text._re_whitespace


def drawable(text: str) -> bool:
    """Whether ``prose_lines`` draws ``text``'s paragraphs as rich would: each of its
    characters one cell wide (so ``len`` counts cells, as rich's ``cell_len``)."""
    return _NOT_ONE_CELL.search(text) is None


def prose_lines(paragraphs: list[str], width: int) -> list[str]:
    """The lines of ``Prose(paragraphs)`` at ``width`` (>= 1): each paragraph wrapped
    and padded to ``width``, an empty line between paragraphs."""
    lines: list[str] = []
    for n, para in enumerate(paragraphs):
        if n:
            lines.append("")
        lines.extend(wrap(para, width))
    return lines


def wrap(para: str, width: int) -> list[str]:
    """``Text(para, justify="left")`` at ``width``: its lines, each ``width`` long."""
    if len(para) <= width:
        return [para + " " * (width - len(para))]
    bounds = [0, *_divide(para, width), len(para)]
    lines = []
    for start, end in pairwise(bounds):
        line = para[start:end]
        if len(line) > width:  # Text.rstrip_end
            space = _TRAILING_SPACE.search(line)
            if space is not None:
                line = line[:len(line) - min(len(space.group()), len(line) - width)]
        lines.append(line[:width] if len(line) > width else line + " " * (width - len(line)))
    return lines


def _divide(text: str, width: int) -> list[int]:
    """``rich._wrap.divide_line(text, width, fold=True)`` for one-cell characters."""
    breaks: list[int] = []
    offset = 0
    for word in _WORD.finditer(text):
        start, chars = word.start(), word.group()
        length = len(chars.rstrip())
        if width - offset >= length:
            offset += len(chars)
        elif length > width:  # folded across lines (trailing spaces and all)
            pieces = [chars[i:i + width] for i in range(0, len(chars), width)]
            for n, piece in enumerate(pieces):
                if start:
                    breaks.append(start)
                if n == len(pieces) - 1:
                    offset = len(piece)
                else:
                    start += len(piece)
        elif offset and start:
            breaks.append(start)
            offset = len(chars)
    return breaks
