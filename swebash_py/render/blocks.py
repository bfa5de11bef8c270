"""Split streamed markdown into settled top-level blocks, in linear total time.

A block is *settled* when markdown-it, parsing the unsettled text, sees a later
top-level block start after it: CommonMark decides block structure line by line,
so nothing that arrives later can change a block that another block has already
followed. Only complete lines are parsed, and parsing is rationed (see
``_worth_parsing``) so a long open block (a big code fence, a long list) does
not make the cost quadratic.

rich's ``Markdown`` renders a document as its top-level elements with one blank
line between them (except after elements whose class has ``new_line = False``,
i.e. horizontal rules), so rendering each settled block on its own and joining
them with that separator equals rendering the whole text at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.markdown import Markdown, UnknownElement

_SMALL = 4096  # below this many unsettled chars, check on every completed line
_NO_REFS = {"fence", "code_block", "html_block"}


_NOT_ELEMENTS = {"text", "hardbreak", "softbreak", "link_open", "link_close", "html_inline"}


@dataclass(frozen=True)
class Block:
    """One settled block: its renderable, and whether a blank line must precede it."""

    source: str
    markdown: Markdown
    gap_before: bool


def _parser() -> MarkdownIt:
    # Block structure only: the same block rules rich enables, no inline pass.
    return MarkdownIt().enable("strikethrough").enable("table").disable("inline")


def _new_line_after(token: Token) -> bool:
    element = Markdown.elements.get(token.type, UnknownElement)
    return bool(element.new_line)


class BlockSplitter:
    """Feed text chunks; get back the blocks that became settled."""

    def __init__(self, make: Callable[[str], Markdown] = Markdown) -> None:
        self._make = make
        self._md = _parser()
        self._tail = ""  # unsettled text, always starting at a line boundary
        self._held_cr = False
        self._parsed_len = 0  # len of the complete-lines prefix at the last parse
        self._fence_close: re.Pattern[str] | None = None  # tail is an open fence
        self._refs: list[str] = []  # link reference definitions seen so far
        self._prev_new_line = False  # rich starts a document without a gap

    @property
    def tail(self) -> str:
        """The unsettled text (what a live preview shows)."""
        return self._tail

    @property
    def open_fence(self) -> bool:
        return self._fence_close is not None

    def feed(self, chunk: str) -> list[Block]:
        """Add a chunk; return the blocks it settled (often none)."""
        if self._held_cr:
            chunk = "\r" + chunk
            self._held_cr = False
        if chunk.endswith("\r"):
            chunk, self._held_cr = chunk[:-1], True
        if "\r" in chunk:
            chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
        start = len(self._tail)
        tail, self._tail = self._tail, ""
        tail += chunk  # a lone reference: CPython grows it in place (linear total)
        self._tail = tail
        if "\n" not in chunk or not self._worth_parsing(start):
            return []
        return self._settle(final=False)

    def finish(self) -> list[Block]:
        """The text ended: everything left is settled."""
        if self._held_cr:
            self._tail += "\n"
            self._held_cr = False
        return self._settle(final=True)

    # ------------------------------------------------------------ internals

    def _worth_parsing(self, start: int) -> bool:
        complete = self._tail.rfind("\n") + 1
        if self._fence_close is not None:
            # Inside an open fence only a closing fence line can settle anything.
            line_start = self._tail.rfind("\n", 0, start) + 1
            new_lines = self._tail[line_start:complete].split("\n")
            return any(self._fence_close.match(line) for line in new_lines)
        if complete < _SMALL:
            return True
        grown = complete - self._parsed_len
        return grown * 4 >= complete or "\n\n" in self._tail[max(start - 1, 0):complete]

    def _settle(self, *, final: bool) -> list[Block]:
        end = len(self._tail) if final else self._tail.rfind("\n") + 1
        text = self._tail[:end]
        self._parsed_len = end
        tokens = self._md.parse(text)
        top = [t for t in tokens if t.level == 0 and t.nesting >= 0 and t.map]
        keep = len(top) if final else len(top) - 1
        lines = text.split("\n")
        blocks: list[Block] = []
        settled_lines = len(lines) if final or keep <= 0 else top[keep].map[0]  # type: ignore[index]
        covered: set[int] = set()
        for token in top[:keep]:
            covered.update(range(*token.map))  # type: ignore[misc]
        if keep > 0 or final:
            uncovered = [ln for i, ln in enumerate(lines[:settled_lines]) if i not in covered]
            self._collect_refs(uncovered)
        for token in top[:keep]:
            start_line, end_line = token.map  # type: ignore[misc]
            blocks.append(self._block(token, "\n".join(lines[start_line:end_line])))
        if final:
            self._tail, self._parsed_len, self._fence_close = "", 0, None
            return blocks
        if keep > 0:
            cut = len("\n".join(lines[:settled_lines])) + 1
            self._tail = self._tail[cut:]
            self._parsed_len = max(0, end - cut)
        self._fence_close = _open_fence(top[-1], text) if top else None
        return blocks

    def _block(self, token: Token, source: str) -> Block:
        if self._refs and token.type not in _NO_REFS:
            source = source + "\n\n" + "\n".join(self._refs)
        markdown = self._make(source)
        # rich emits the gap before an element from the state its last exited
        # sub-element left; a block with sub-elements carries that gap itself.
        gap = bool(self._prev_new_line) and _element_exits(markdown.parsed) <= 1
        self._prev_new_line = _new_line_after(token)
        return Block(source, markdown, gap)

    def _collect_refs(self, lines: list[str]) -> None:
        chunk = "\n".join(line for line in lines if line.strip())
        if chunk:
            self._refs.append(chunk)


def _flatten(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:  # mirrors rich.markdown.Markdown._flatten_tokens
        if token.children and not (token.type == "fence" or token.tag == "img"):
            yield from _flatten(token.children)
        else:
            yield token


def _element_exits(tokens: list[Token]) -> int:
    """How many rich markdown elements close while rendering ``tokens``."""
    count = 0
    for token in _flatten(tokens):
        if token.type in _NOT_ELEMENTS:
            continue
        if token.tag in Markdown.inlines and token.type not in ("fence", "code_block"):
            continue
        if token.nesting <= 0:
            count += 1
    return count


def _open_fence(token: Token, text: str) -> re.Pattern[str] | None:
    """For a fence that runs to the end of ``text``, the pattern of its closing line."""
    if token.type != "fence" or not token.map or not token.markup:
        return None
    char = re.escape(token.markup[0])
    closing = re.compile(rf"^ {{0,3}}{char}{{{len(token.markup)},}}[ \t]*$")
    first, end = token.map
    lines = text.split("\n")
    if end - 1 > first and end - 1 < len(lines) and closing.match(lines[end - 1]):
        return None  # already closed
    return closing
