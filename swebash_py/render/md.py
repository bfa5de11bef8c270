"""rich's ``Markdown``, built cheaply: one shared parser, cached lexers and themes.

``rich.markdown.Markdown`` constructs a new ``MarkdownIt`` parser for every
instance (~0.3 ms, more than parsing a short block), and each code block looks
its Pygments lexer up by name (a scan of every lexer's aliases) and builds its
theme anew. A streamed answer makes one ``Markdown`` per settled block, so
those costs are paid thousands of times; here they are paid once per process.
Code blocks are drawn by ``code.CodeView``; headings, paragraphs and list items
that fit on one line skip rich's wrapping (``oneline``); inline text without
syntax characters skips the inline parser (``complete``); a document of only
common blocks skips rich's element machinery altogether (``direct``). The output is
identical to ``Markdown``'s, byte for byte (``tests/render/test_render_code.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.rules_core.state_core import StateCore
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import (
    CodeBlock,
    Heading,
    ListItem,
    Markdown,
    MarkdownContext,
    MarkdownElement,
    Paragraph,
)
from rich.segment import Segment
from rich.syntax import Syntax, SyntaxTheme

from swebash_py.render import inline
from swebash_py.render.asciilex import ascii_variant
from swebash_py.render.code import CodeView
from swebash_py.render.direct import Direct
from swebash_py.render.oneline import one_line

# The same rules rich's Markdown enables; parsing is stateless, so one parser serves all.
PARSER = MarkdownIt().enable("strikethrough").enable("table")
# Its block stage alone (block tokens, ``inline`` tokens left unparsed) ...
BLOCK_PARSER = MarkdownIt().enable("strikethrough").enable("table").disable("inline")
# ... and the rest of its core chain, run later on block tokens: together, one parse.
_INLINE_PASS = MarkdownIt().enable("strikethrough").enable("table").disable(
    ["normalize", "block"])


def complete(tokens: list[Token], env: dict[str, object]) -> list[Token]:
    """Finish ``BLOCK_PARSER`` tokens (with the ``env`` of that parse) as ``PARSER`` would.

    An inline token whose text holds none of the characters that can start
    inline syntax (the inline parser's own terminators) becomes one text token,
    which is what the inline pass would make of it, without running that pass;
    one of only strong and code spans in plain text gets its tokens from
    ``inline`` (the same tokens).
    """
    plain = _INLINE_PASS.inline.terminator_re.search
    rest = []
    for token in tokens:
        if token.type != "inline":
            continue
        if plain(token.content) is None:
            token.children = [Token("text", "", 0, content=token.content)] if token.content else []
        else:
            made = inline.children(token.content)  # strong and code spans in plain text
            if made is None:
                rest.append(token)
            else:
                token.children = made
    state = StateCore("", _INLINE_PASS, env)
    state.tokens = rest  # the inline pass reads and fills only inline tokens
    _INLINE_PASS.core.process(state)
    return tokens


@lru_cache(maxsize=64)
def lexer(name: str, ascii_only: bool = False) -> Lexer:
    """The Pygments lexer ``Syntax`` would build for ``name`` ("text" when unknown);
    with ``ascii_only``, one that lexes ASCII text to the same tokens and is cheaper
    to build (``asciilex``): only for text that ``str.isascii``."""
    try:
        cls = find_lexer_class_by_name(name)  # get_lexer_by_name's lookup, not built yet
    except ClassNotFound:
        cls = find_lexer_class_by_name("text")
    if ascii_only:
        cls = ascii_variant(cls)
    return cls(stripnl=False, ensurenl=True, tabsize=4)


def code_lexer(name: str, code: str) -> Lexer:
    """The lexer for a code block of language ``name`` holding ``code``."""
    return lexer(name, code.isascii())


@lru_cache(maxsize=8)
def theme(name: str) -> SyntaxTheme:
    """One ``SyntaxTheme`` per name (it caches token styles as it goes)."""
    return Syntax.get_theme(name)


class _CodeBlock(CodeBlock):
    """rich's ``CodeBlock``: lexer and theme from the caches, drawn by ``CodeView``."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield CodeView(code, code_lexer(self.lexer_name, code), theme(self.theme))


class _Paragraph(Paragraph):
    """rich's ``Paragraph``; a one-line text skips ``Text.wrap`` (``oneline``)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.text.justify = self.justify
        fast = one_line(console, options, self.text)
        if fast is None:
            yield self.text
        else:
            yield from fast


class _Heading(Heading):
    """rich's ``Heading``; a one-line text skips ``Text.wrap`` (``oneline``)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = self.LEVEL_ALIGN.get(self.tag, "left")
        fast = one_line(console, options, text)
        if fast is None:
            yield text
        else:
            yield from fast


class _ListItem(ListItem):
    """rich's ``ListItem``; an item of one one-line paragraph skips ``render_lines``."""

    def __init__(self) -> None:
        super().__init__()
        self.children: list[MarkdownElement] = []  # what rich keeps in ``elements``

    def on_child_close(self, context: MarkdownContext, child: MarkdownElement) -> bool:
        self.children.append(child)
        return super().on_child_close(context, child)

    def render_bullet(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = self._one_line(console, options, 3)
        if line is None:
            yield from super().render_bullet(console, options)
            return
        yield Segment(" • ", console.get_style("markdown.item.bullet", default="none"))
        yield from line
        yield Segment.line()

    def render_number(self, console: Console, options: ConsoleOptions, number: int,
                      last_number: int) -> RenderResult:
        number_width = len(str(last_number)) + 2
        line = self._one_line(console, options, number_width)
        if line is None:
            yield from super().render_number(console, options, number, last_number)
            return
        number_style = console.get_style("markdown.item.number", default="none")
        yield Segment(f"{number}".rjust(number_width - 1) + " ", number_style)
        yield from line
        yield Segment.line()

    def _one_line(self, console: Console, options: ConsoleOptions,
                  indent: int) -> list[Segment] | None:
        """The item's one line as ``render_lines`` would give it (its style applied,
        no newline), or None."""
        paragraph = self.children[0] if len(self.children) == 1 else None
        if (not isinstance(paragraph, _Paragraph) or options.height is not None
                or options.max_width <= indent):  # no room: rich draws no line at all
            return None
        paragraph.text.justify = paragraph.justify
        segments = one_line(console, options.update(width=options.max_width - indent),
                            paragraph.text)
        if segments is None:
            return None
        *line, end = segments
        if end.text != "\n" or any(s.control for s in line):
            return None
        style = self.style
        return [Segment(t, style + s) for t, s, _ in line] if style else line


class FastMarkdown(Markdown):
    """``Markdown(markup, code_theme)`` parsed by the shared parser (or given its tokens)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock,
        "paragraph_open": _Paragraph, "heading_open": _Heading, "list_item_open": _ListItem,
    }

    def __init__(self, markup: str, code_theme: str = "monokai", *,
                 parsed: list[Token] | None = None) -> None:
        # Markdown.__init__ without its parser construction (same attributes).
        self.markup = markup
        self.parsed = PARSER.parse(markup) if parsed is None else parsed
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.justify is not None or self.inline_code_lexer is not None:
            yield from super().__rich_console__(console, options)
            return
        if options.max_width < 1:
            return  # what console.render does with each of rich's elements

        def rich(tokens: list[Token]) -> Iterable[Segment]:
            part = FastMarkdown(self.markup, self.code_theme, parsed=tokens)
            part.style = self.style
            return Markdown.__rich_console__(part, console, options)  # type: ignore[return-value]

        base = console.get_style(self.style, default="none")
        yield from Direct(console, options, base, self._code).segments(self.parsed, rich)

    def _code(self, name: str, code: str) -> tuple[Lexer, SyntaxTheme]:
        """What ``_CodeBlock`` draws a block of language ``name`` holding ``code`` with."""
        return code_lexer(name, code), theme(self.code_theme)
