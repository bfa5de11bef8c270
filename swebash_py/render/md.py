"""rich's ``Markdown``, built cheaply: one shared parser, cached lexers and themes.

``rich.markdown.Markdown`` constructs a new ``MarkdownIt`` parser for every
instance (~0.3 ms, more than parsing a short block), and each code block looks
its Pygments lexer up by name (a scan of every lexer's aliases) and builds its
theme anew. A streamed answer makes one ``Markdown`` per settled block, so
those costs are paid thousands of times; here they are paid once per process.
The output is identical to ``Markdown``'s (a golden test compares them).
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.rules_core.state_core import StateCore
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown, MarkdownElement, Paragraph
from rich.syntax import Syntax, SyntaxTheme

from swebash_py.render.code import CodeView
from swebash_py.render.oneline import one_line

# The same rules rich's Markdown enables; parsing is stateless, so one parser serves all.
PARSER = MarkdownIt().enable("strikethrough").enable("table")
# Its block stage alone (block tokens, ``inline`` tokens left unparsed) ...
BLOCK_PARSER = MarkdownIt().enable("strikethrough").enable("table").disable("inline")
# ... and the rest of its core chain, run later on block tokens: together, one parse.
_INLINE_PASS = MarkdownIt().enable("strikethrough").enable("table").disable(
    ["normalize", "block"])


def complete(tokens: list[Token], env: dict[str, object]) -> list[Token]:
    """Finish ``BLOCK_PARSER`` tokens (with the ``env`` of that parse) as ``PARSER`` would."""
    state = StateCore("", _INLINE_PASS, env)
    state.tokens = tokens
    _INLINE_PASS.core.process(state)
    return state.tokens


@lru_cache(maxsize=64)
def lexer(name: str) -> Lexer:
    """The Pygments lexer ``Syntax`` would build for ``name`` ("text" when unknown)."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=4)


@lru_cache(maxsize=8)
def theme(name: str) -> SyntaxTheme:
    """One ``SyntaxTheme`` per name (it caches token styles as it goes)."""
    return Syntax.get_theme(name)


class _CodeBlock(CodeBlock):
    """rich's ``CodeBlock``: lexer and theme from the caches, drawn by ``CodeView``."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield CodeView(code, lexer(self.lexer_name), theme(self.theme))


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


class FastMarkdown(Markdown):
    """``Markdown(markup, code_theme)`` parsed by the shared parser (or given its tokens)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock,
        "paragraph_open": _Paragraph, "heading_open": _Heading,
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
