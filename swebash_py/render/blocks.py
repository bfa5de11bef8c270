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
them with that separator equals rendering the whole text at once. The blocks
one parse settles are handed on as one ``Block`` (one rich document: one parse,
one render), unless link reference definitions must be appended to each.

``add`` only appends; ``settle`` parses. A renderer that shows settled blocks
once per frame calls ``settle`` once per frame, so the parser runs a few dozen
times per answer, not once per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from markdown_it.token import Token
from rich.markdown import Markdown, MarkdownElement

from swebash_py.render.md import FastMarkdown, block_parse, complete
from swebash_py.render.settling import SettlingText

_NO_REFS = {"fence", "code_block", "html_block"}
_NOT_ELEMENTS = {"text", "hardbreak", "softbreak", "link_open", "link_close", "html_inline"}


@dataclass(frozen=True)
class Block:
    """Settled text (one or more top-level blocks): its renderable, and whether a
    blank line must precede it."""

    source: str
    markdown: FastMarkdown
    gap_before: bool



class MakeMarkdown(Protocol):
    def __call__(self, source: str, /, *, parsed: list[Token] | None = None) -> FastMarkdown: ...


def _new_line_after(token: Token) -> bool:
    """Whether rich's loop puts a blank line after the element ``token`` opens."""
    element = FastMarkdown.elements.get(token.type)
    return element is None or element.new_line


def _draws_children(token_type: str) -> bool:
    """Whether rich draws the children of this element as they close (its default
    ``on_child_close``) rather than keeping them to draw with itself."""
    element = FastMarkdown.elements.get(token_type)
    return element is None or element.on_child_close is MarkdownElement.on_child_close


class BlockSplitter(SettlingText[Block]):
    """Feed text chunks; get back the blocks that became settled."""

    def __init__(self, make: MakeMarkdown = FastMarkdown) -> None:
        super().__init__()
        self._make = make
        self._fence_close: re.Pattern[str] | None = None  # tail is an open fence
        self._refs: list[str] = []  # link reference definitions seen so far

    @property
    def open_fence(self) -> bool:
        return self._fence_close is not None

    def feed(self, chunk: str) -> list[Block]:
        """Add a chunk; return the blocks it settled (often none)."""
        self.add(chunk)
        return self.settle()

    # ------------------------------------------------------------ internals

    def _worth_parsing(self, start: int) -> bool:
        if self._fence_close is not None:
            # Inside an open fence only a closing fence line can settle anything.
            complete = self._tail.rfind("\n") + 1
            line_start = self._tail.rfind("\n", 0, start) + 1
            new_lines = self._tail[line_start:complete].split("\n")
            return any(self._fence_close.match(line) for line in new_lines)
        return super()._worth_parsing(start)

    def _settle(self, *, final: bool) -> list[Block]:
        end = len(self._tail) if final else self._tail.rfind("\n") + 1
        text = self._tail[:end]
        self._parsed_len = end
        env: dict[str, object] = {}
        tokens = block_parse(text, env)
        starts = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting >= 0 and t.map]
        top = [tokens[i] for i in starts]
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
        if keep > 0:
            end_token = starts[keep] if keep < len(starts) else len(tokens)
            blocks = self._blocks(top[:keep], lines, tokens[starts[0]:end_token], env)
        if final:
            self._tail, self._parsed_len, self._fence_close = "", 0, None
            self._unsettled_from = 0
            return blocks
        if keep > 0:
            cut = len("\n".join(lines[:settled_lines])) + 1
            self._tail = self._tail[cut:]
            self._parsed_len = max(0, end - cut)
        self._fence_close = _open_fence(top[-1], text) if top else None
        return blocks

    def _blocks(self, top: list[Token], lines: list[str], tokens: list[Token],
                env: dict[str, object]) -> list[Block]:
        """One ``Block`` for the blocks ``top`` (their block ``tokens`` completed, not
        parsed again); one each when link references must be appended to them."""
        if self._refs:  # each block needs the references appended (not after a fence)
            return [self._block(t, "\n".join(lines[t.map[0]:t.map[1]]))  # type: ignore[index]
                    for t in top]
        source = "\n".join(lines[top[0].map[0]:top[-1].map[1]])  # type: ignore[index]
        markdown = self._make(source, parsed=complete(tokens, env))
        gap = bool(self._prev_new_line) and _owes_prior_gap(_first_element(markdown.parsed))
        self._prev_new_line = _new_line_after(top[-1])
        return [Block(source, markdown, gap)]

    def _block(self, token: Token, source: str) -> Block:
        if self._refs and token.type not in _NO_REFS:
            source = source + "\n\n" + "\n".join(self._refs)
        markdown = self._make(source)
        # rich emits the gap before an element it draws from the state the element
        # last left left; a block whose sub-elements left first carries it itself.
        gap = bool(self._prev_new_line) and _owes_prior_gap(markdown.parsed)
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


def _first_element(tokens: list[Token]) -> list[Token]:
    """The tokens of the first top-level element of a parsed document."""
    for i, token in enumerate(tokens):
        if token.level == 0 and token.nesting <= 0:
            return tokens[:i + 1]
    return tokens


def _owes_prior_gap(tokens: list[Token]) -> bool:
    """Whether rich draws the first element that closes in ``tokens`` (one block)
    with the blank line the block before it asked for: it does when that element
    is drawn as it closes (at the top, or in an element that draws its children,
    like an image in a paragraph) with no element left before it. Elements
    inside a list, quote or table are kept for their parent, which is drawn
    after its children left theirs: such a block carries its own blank line.
    """
    parents: list[str] = []  # the token types of the open elements
    for token in _flatten(tokens):
        if token.type in _NOT_ELEMENTS:
            continue
        if token.tag in Markdown.inlines and token.type not in ("fence", "code_block"):
            continue
        if token.nesting == 1:
            parents.append(token.type)
            continue
        if token.nesting == -1:
            parents.pop()
        if token.type == "inline":  # never drawn after a blank line, then owes one
            return False
        return not parents or _draws_children(parents[-1])
    return False


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
