"""rich's ``Markdown``, drawn cheaply: one shared parser, cached lexers and themes.

``rich.markdown.Markdown`` constructs a new ``MarkdownIt`` parser for every
instance (~0.3 ms, more than parsing a short block), and each code block looks
its Pygments lexer up by name (a scan of every lexer's aliases) and builds its
theme anew. A streamed answer makes one ``Markdown`` per settled block, so
those costs are paid thousands of times; here they are paid once per process.
Code blocks are drawn by ``code.CodeView``; headings, paragraphs and list items
that fit on one line skip rich's wrapping (``oneline``); inline text without
syntax characters, or with only strong and code spans, skips the inline parser
(``complete``); a document of only
common blocks skips rich's element machinery altogether (``direct``), and
``rich.markdown`` is imported only for a block ``direct`` does not draw
(``richmd``). The output is identical to ``Markdown``'s, byte for byte
(``tests/render/test_render_code.py``, ``test_render_direct.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class_by_name
from pygments.lexers._mapping import LEXERS
from pygments.plugin import find_plugin_lexers
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.syntax import Syntax, SyntaxTheme

from swebash_py.render import fastblock, inline
from swebash_py.render.asciilex import ascii_variant
from swebash_py.render.direct import Direct
from swebash_py.render.tokens import Tok, ours, real
from swebash_py.render.tokens import Tok as Token

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from swebash_py.render.richmd import RichMarkdown

# The characters that stop markdown-it's inline ``text`` rule (its ``terminator_re``):
# text without them is one text token (a test compares the two).
TERMINATORS = re.compile(r"[\n!#$%&*+\-:<=>@\[\\\]^_`{}~]")


@lru_cache(maxsize=1)
def _parsers() -> tuple[MarkdownIt, MarkdownIt, MarkdownIt]:
    from markdown_it import MarkdownIt

    # The same rules rich's Markdown enables; parsing is stateless, so one parser serves
    # all: the whole parser; its block stage alone (block tokens, ``inline`` tokens left
    # unparsed); and the rest of its core chain, run later on block tokens.
    return (MarkdownIt().enable("strikethrough").enable("table"),
            MarkdownIt().enable("strikethrough").enable("table").disable("inline"),
            MarkdownIt().enable("strikethrough").enable("table").disable(
                ["normalize", "block"]))


def block_parser() -> MarkdownIt:
    """markdown-it's block stage alone (``BLOCK_PARSER``)."""
    return _parsers()[1]


def __getattr__(name: str) -> MarkdownIt:
    """``PARSER`` and ``BLOCK_PARSER``, built (and markdown-it imported) on first use."""
    if name == "PARSER":
        return _parsers()[0]
    if name == "BLOCK_PARSER":
        return _parsers()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def complete(tokens: list[Token], env: dict[str, object]) -> list[Token]:
    """Finish ``BLOCK_PARSER`` tokens (with the ``env`` of that parse) as ``PARSER`` would.

    An inline token whose text holds none of the characters that can start
    inline syntax (the inline parser's own terminators) becomes one text token,
    which is what the inline pass would make of it, without running that pass;
    one of only strong and code spans in plain text gets its tokens from
    ``inline`` (the same tokens). Only when some text needs the inline pass are
    ``fastblock``'s tokens made markdown-it's own (and markdown-it imported).
    """
    plain = TERMINATORS.search
    rest = []
    for i, token in enumerate(tokens):
        if token.type != "inline":
            continue
        if plain(token.content) is None:
            token.children = [Tok("text", "", 0, content=token.content)] if token.content else []
        else:
            made = inline.children(token.content)  # strong and code spans in plain text
            if made is None:
                rest.append(i)
            else:
                token.children = made
    if not rest:  # the rest of the chain reads and fills only inline tokens
        return tokens if ours(tokens) else real(tokens)
    from markdown_it.rules_core.state_core import StateCore

    tokens = real(tokens)
    inline_pass = _parsers()[2]
    state = StateCore("", inline_pass, env)
    state.tokens = [tokens[i] for i in rest]  # the inline pass reads and fills only these
    inline_pass.core.process(state)
    return tokens


def parse(markup: str) -> list[Token]:
    """``PARSER.parse(markup)``: block tokens from ``fastblock`` when it takes the text."""
    tokens = fastblock.parse(markup)
    return _parsers()[0].parse(markup) if tokens is None else complete(tokens, {})


@lru_cache(maxsize=64)
def lexer(name: str, ascii_only: bool = False) -> Lexer:
    """The Pygments lexer ``Syntax`` would build for ``name`` ("text" when unknown);
    with ``ascii_only``, one that lexes ASCII text to the same tokens and is cheaper
    to build (``asciilex``): only for text that ``str.isascii``."""
    try:
        cls = lexer_class(name)
    except ClassNotFound:
        cls = lexer_class("text")
    if ascii_only:
        cls = ascii_variant(cls)  # type: ignore[arg-type]
    return cls(stripnl=False, ensurenl=True, tabsize=4)


def lexer_class(name: str) -> type[Lexer]:
    """``find_lexer_class_by_name(name)`` (``get_lexer_by_name``'s lookup), with the
    installed plugins' lexers listed once per process: a live preview asks for
    every prefix of a fence's language as it streams in ("p", "py", "pyt", ...),
    and each miss would scan the installed packages' entry points again."""
    alias = name.lower()
    if alias in _builtin_aliases():
        found: type[Lexer] = find_lexer_class_by_name(name)
        return found
    for cls in _plugin_lexers() if name else ():
        if alias in cls.aliases:
            return cls
    raise ClassNotFound(f"no lexer for alias {name!r} found")


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset[str]:
    return frozenset(alias for _, _, aliases, _, _ in LEXERS.values() for alias in aliases)


@lru_cache(maxsize=1)
def _plugin_lexers() -> tuple[type[Lexer], ...]:
    return tuple(find_plugin_lexers())


def code_lexer(name: str, code: str) -> Lexer:
    """The lexer for a code block of language ``name`` holding ``code``."""
    return lexer(name, code.isascii())


@lru_cache(maxsize=8)
def theme(name: str) -> SyntaxTheme:
    """One ``SyntaxTheme`` per name (it caches token styles as it goes)."""
    return Syntax.get_theme(name)


class FastMarkdown:
    """``Markdown(markup, code_theme)`` parsed by the shared parser (or given its tokens),
    drawn by ``direct``; rich's loop (``richmd``, imported then) draws the rest."""

    def __init__(self, markup: str, code_theme: str = "monokai", *,
                 parsed: list[Token] | None = None) -> None:
        # Markdown's attributes, as Markdown(markup, code_theme) sets them.
        self.markup = markup
        self.parsed = parse(markup) if parsed is None else parsed
        self.code_theme = code_theme
        self.justify: str | None = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer: str | None = None
        self.inline_code_theme = code_theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.justify is not None or self.inline_code_lexer is not None:
            yield from self._rich(self.parsed).__rich_console__(console, options)
            return
        if options.max_width < 1:
            return  # what console.render does with each of rich's elements

        def rich(tokens: list[Token]) -> Iterable[Segment]:
            return self._rich(tokens).__rich_console__(console, options)  # type: ignore[return-value]

        base = console.get_style(self.style, default="none")
        yield from Direct(console, options, base, self._code).segments(self.parsed, rich)

    def _rich(self, tokens: list[Token]) -> RichMarkdown:
        """rich's ``Markdown`` (with our elements) of these tokens, this one's settings."""
        from swebash_py.render.richmd import RichMarkdown

        return RichMarkdown(self.markup, self.code_theme, real(tokens), style=self.style,
                            justify=self.justify, inline_code_lexer=self.inline_code_lexer,
                            inline_code_theme=self.inline_code_theme,
                            hyperlinks=self.hyperlinks)

    def _code(self, name: str, code: str) -> tuple[Lexer, SyntaxTheme]:
        """What ``_CodeBlock`` draws a block of language ``name`` holding ``code`` with."""
        return code_lexer(name, code), theme(self.code_theme)
