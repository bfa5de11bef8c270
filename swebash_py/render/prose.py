"""Answer text with no Markdown syntax, rendered as rich's ``Markdown`` would, without it.

A short answer is often plain prose: sentences in paragraphs, no emphasis, code,
lists or links. For such text markdown-it finds only paragraphs of plain text,
so rich's ``Markdown`` shows each paragraph as one left-justified ``Text`` (line
breaks inside a paragraph become spaces), with a blank line between paragraphs.
``Prose`` renders that directly, and ``ProseSplitter`` settles paragraphs exactly
when ``blocks.BlockSplitter`` would, so an answer that stays prose never imports
markdown-it, rich's Markdown or Pygments (~30 ms of a one-shot's start-up). Once
the text holds anything that could be syntax, ``markdown_stream`` hands the
unsettled text over to a ``BlockSplitter`` in the very state it would be in.

What counts as prose is deliberately narrow (see ``_RISKY`` and ``_LINE_RISK``):
no character that starts inline syntax (``\\ ` * _ [ ] < & ~ |``), no tab, no
line that starts with whitespace or a block marker (``# > + = -``, ``1.``,
``1)``), no whitespace before a line break. Tests compare the bytes with
``FastMarkdown``'s and rich's ``Markdown``'s.
"""

from __future__ import annotations

import re
from typing import TypedDict

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from swebash_py.render.oneline import one_line

# Characters that can start inline syntax or a table (emphasis, code, links,
# images, autolinks, HTML, entities, escapes, strikethrough, table cells), and tabs.
_RISKY = re.compile(r"[\\`*_\[\]<&~|\t]")
# A line (after a newline) that starts with whitespace or a block marker, or
# whitespace before a line break (a hard or soft break that trims it).
_LINE_RISK = re.compile(r"\n(?:[^\S\n]|[#>+=\-]|\d{1,9}[.)])|[^\S\n]\n")
_SMALL = 4096  # as in ``blocks``: below this many unsettled chars, parse every line
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


class Prose:
    """``FastMarkdown(text)`` for prose ``text``: its paragraphs, a blank line between."""

    def __init__(self, paras: list[str]) -> None:
        self.paragraphs = paras

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        options = options.update(height=None)  # as Markdown renders its elements
        for n, para in enumerate(self.paragraphs):
            if n:
                yield Segment.line()
            text = Text(para, justify="left")
            fast = one_line(console, options, text)
            if fast is None:
                yield from console.render(text, options)
            else:
                yield from fast


class ProseState(TypedDict):
    """Where a ``ProseSplitter`` stands: what ``BlockSplitter.resume`` takes."""

    tail: str
    held_cr: bool
    parsed_len: int
    unsettled_from: int
    prev_new_line: bool


class ProseBlock:
    """Settled prose (one or more paragraphs), as ``blocks.Block``."""

    __slots__ = ("gap_before", "markdown", "source")

    def __init__(self, source: str, markdown: Prose, gap_before: bool) -> None:
        self.source = source
        self.markdown = markdown
        self.gap_before = gap_before


class ProseSplitter:
    """``BlockSplitter`` for prose: the same blocks, settled at the same calls.

    ``prose`` turns False (for good) once the text holds anything else; the
    owner then continues with ``BlockSplitter.resume(**splitter.state())``.
    """

    open_fence = False

    def __init__(self) -> None:
        self.tail = ""  # unsettled text, always starting at a line boundary
        self.prose = True
        self._held_cr = False
        self._parsed_len = 0
        self._prev_new_line = False
        self._unsettled_from = 0
        self._line_start = 0  # where the last line of ``tail`` starts

    def state(self) -> ProseState:
        """What a ``BlockSplitter`` needs to go on from here."""
        return {"tail": self.tail, "held_cr": self._held_cr, "parsed_len": self._parsed_len,
                "unsettled_from": self._unsettled_from, "prev_new_line": self._prev_new_line}

    def add(self, chunk: str) -> None:
        """Append a chunk as ``BlockSplitter.add`` does; note whether it is still prose."""
        if self._held_cr:
            chunk = "\r" + chunk
            self._held_cr = False
        if chunk.endswith("\r"):
            chunk, self._held_cr = chunk[:-1], True
        if "\r" in chunk:
            chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
        tail, self.tail = self.tail, ""
        old = len(tail)
        tail += chunk  # a lone reference: CPython grows it in place (linear total)
        self.tail = tail
        if self.prose and chunk:
            self.prose = self._still_prose(old, chunk)
        if "\n" in chunk:
            self._line_start = old + chunk.rfind("\n") + 1

    def _still_prose(self, old: int, chunk: str) -> bool:
        if _RISKY.search(chunk) is not None:
            return False
        if old - self._line_start < _LOOK_BACK:  # the line's start may change meaning
            return _LINE_RISK.search("\n" + self.tail[self._line_start:]) is None
        return _LINE_RISK.search(self.tail, old - 1) is None

    def settle(self) -> list[ProseBlock]:
        """As ``BlockSplitter.settle``."""
        start, self._unsettled_from = self._unsettled_from, len(self.tail)
        if self.tail.find("\n", max(start - 1, 0)) < 0 or not self._worth_parsing(start):
            return []
        blocks = self._settle(final=False)
        self._unsettled_from = len(self.tail)
        return blocks

    def finish(self) -> list[ProseBlock]:
        """As ``BlockSplitter.finish``."""
        if self._held_cr:
            self.tail += "\n"
            self._held_cr = False
        return self._settle(final=True)

    def _worth_parsing(self, start: int) -> bool:
        complete = self.tail.rfind("\n") + 1
        if complete < _SMALL:
            return True
        grown = complete - self._parsed_len
        return grown * 4 >= complete or "\n\n" in self.tail[max(start - 1, 0):complete]

    def _settle(self, *, final: bool) -> list[ProseBlock]:
        end = len(self.tail) if final else self.tail.rfind("\n") + 1
        text = self.tail[:end]
        self._parsed_len = end
        lines = text.split("\n")
        spans = _paragraph_spans(lines)
        keep = len(spans) if final else len(spans) - 1
        blocks: list[ProseBlock] = []
        if keep > 0:
            source = "\n".join(lines[spans[0][0]:spans[keep - 1][1]])
            blocks = [ProseBlock(source, Prose(paragraphs(source)), self._prev_new_line)]
            self._prev_new_line = True  # a paragraph is followed by a blank line
        if final:
            self.tail, self._parsed_len, self._unsettled_from = "", 0, 0
            self._line_start = 0
        elif keep > 0:
            cut = len("\n".join(lines[:spans[keep][0]])) + 1
            self.tail = self.tail[cut:]
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
