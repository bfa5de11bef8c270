"""Answer text with no Markdown syntax, rendered as rich's ``Markdown`` would, without it.

A short answer is often plain prose: sentences in paragraphs, no emphasis, code,
lists or links. For such text markdown-it finds only paragraphs of plain text,
so rich's ``Markdown`` shows each paragraph as one left-justified ``Text`` (line
breaks inside a paragraph become spaces), with a blank line between paragraphs.
``prose_view.Prose`` renders that directly, and ``ProseSplitter`` settles paragraphs
exactly when ``blocks.BlockSplitter`` would, so an answer that stays prose never imports
markdown-it, rich's Markdown or Pygments (~30 ms of a one-shot's start-up). Once
the text holds anything that could be syntax, ``markdown_stream`` hands the
unsettled text over to a ``BlockSplitter`` in the very state it would be in.

What counts as prose is deliberately narrow (see ``_RISKY`` and ``_LINE_RISK``):
no character that starts inline syntax (``\\ ` * _ [ ] < & ~ |``), no tab, no
line that starts with whitespace or a block marker (``# > + = -``, ``1.``,
``1)``), no whitespace before a line break. Tests compare the bytes with
``FastMarkdown``'s and rich's ``Markdown``'s. Stdlib only (rich is imported by
``prose_view``): ``cli.tty_text`` draws prose in a terminal without rich.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypedDict

from swebash_py.render.settling import SettlingText

if TYPE_CHECKING:
    from swebash_py.render.prose_view import Prose

# Characters that can start inline syntax or a table (emphasis, code, links,
# images, autolinks, HTML, entities, escapes, strikethrough, table cells), and tabs.
_RISKY = re.compile(r"[\\`*_\[\]<&~|\t]")
# A line (after a newline) that starts with whitespace or a block marker, or
# whitespace before a line break (a hard or soft break that trims it).
_LINE_RISK = re.compile(r"\n(?:[^\S\n]|[#>+=\-]|\d{1,9}[.)])|[^\S\n]\n")
_LOOK_BACK = 16  # enough of a line to see its start (``\d{1,9}[.)]``)


def is_prose(text: str) -> bool:
    """True when ``text`` (starting at a line start) is plain paragraphs only."""
    return _RISKY.search(text) is None and _LINE_RISK.search("\n" + text) is None


def paragraphs(text: str) -> list[str]:
    """The paragraphs of prose ``text`` as rich's Markdown shows them: each run of
    non-empty lines joined by spaces, stripped."""
    out: list[str] = []
    run: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line:
            run.append(line)
        elif run:
            para = " ".join(run).strip()
            if para:
                out.append(para)
            run = []
    return out


class ProseState(TypedDict):
    """Where a ``ProseSplitter`` stands: what ``BlockSplitter.resume`` takes."""

    tail: str
    held_cr: bool
    parsed_len: int
    unsettled_from: int
    prev_new_line: bool


class ProseBlock:
    """Settled prose (one or more paragraphs), as ``blocks.Block``; its renderable
    (and with it rich) only when asked for."""

    __slots__ = ("gap_before", "paragraphs", "source")

    def __init__(self, source: str, paras: list[str], gap_before: bool) -> None:
        self.source = source
        self.paragraphs = paras
        self.gap_before = gap_before

    @property
    def markdown(self) -> Prose:
        from swebash_py.render.prose_view import Prose

        return Prose(self.paragraphs)


class ProseSplitter(SettlingText[ProseBlock]):
    """``BlockSplitter`` for prose: the same blocks, settled at the same calls.

    ``prose`` turns False (for good) once the text holds anything else; the
    owner then continues with ``BlockSplitter.resume(**splitter.state())``.
    """

    open_fence = False

    def __init__(self) -> None:
        super().__init__()
        self.prose = True
        self._line_start = 0  # where the last line of ``tail`` starts

    def state(self) -> ProseState:
        """What a ``BlockSplitter`` needs to go on from here."""
        return {"tail": self._tail, "held_cr": self._held_cr, "parsed_len": self._parsed_len,
                "unsettled_from": self._unsettled_from, "prev_new_line": self._prev_new_line}

    def add(self, chunk: str) -> None:
        """Append a chunk as ``BlockSplitter.add`` does; note whether it is still prose."""
        old = len(self._tail)
        super().add(chunk)
        added = self._tail[old:]  # the chunk as added (line ends made ``\n``)
        if self.prose and added:
            self.prose = self._still_prose(old, added)
        if "\n" in added:
            self._line_start = old + added.rfind("\n") + 1

    def _still_prose(self, old: int, chunk: str) -> bool:
        if _RISKY.search(chunk) is not None:
            return False
        if old - self._line_start < _LOOK_BACK:  # the line's start may change meaning
            return _LINE_RISK.search("\n" + self._tail[self._line_start:]) is None
        return _LINE_RISK.search(self._tail, old - 1) is None

    def _settle(self, *, final: bool) -> list[ProseBlock]:
        end = len(self._tail) if final else self._tail.rfind("\n") + 1
        text = self._tail[:end]
        self._parsed_len = end
        lines = text.split("\n")
        spans = _paragraph_spans(lines)
        keep = len(spans) if final else len(spans) - 1
        blocks: list[ProseBlock] = []
        if keep > 0:
            source = "\n".join(lines[spans[0][0]:spans[keep - 1][1]])
            blocks = [ProseBlock(source, paragraphs(source), self._prev_new_line)]
            self._prev_new_line = True  # a paragraph is followed by a blank line
        if final:
            self._tail, self._parsed_len, self._unsettled_from = "", 0, 0
            self._line_start = 0
        elif keep > 0:
            cut = len("\n".join(lines[:spans[keep][0]])) + 1
            self._tail = self._tail[cut:]
            self._parsed_len = max(0, end - cut)
            self._line_start -= cut
        return blocks


def _paragraph_spans(lines: list[str]) -> list[tuple[int, int]]:
    """(first line, line after the last) of each run of non-empty lines: markdown-it's
    ``map`` of each paragraph of prose."""
    spans: list[tuple[int, int]] = []
    start = None
    for n, line in enumerate(lines):
        if line and start is None:
            start = n
        elif not line and start is not None:
            spans.append((start, n))
            start = None
    if start is not None:
        spans.append((start, len(lines)))
    return spans
