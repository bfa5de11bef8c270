"""rich's ``Markdown``, with one shared parser and cached lexers and themes.

``rich.markdown.Markdown`` builds a new ``MarkdownIt`` parser for every instance
(~0.3 ms, more than parsing a short block), and each code block looks its
Pygments lexer up by name and builds its theme anew. A streamed answer makes one
``Markdown`` per settled block, so those costs would be paid thousands of times;
here they are paid once per process. Everything is drawn by rich itself: this
module only hands it what it would have built (``front.warmup`` imports it all in
the background while the request is on the wire).
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
from rich.markdown import CodeBlock, Markdown, MarkdownElement
from rich.syntax import Syntax, SyntaxTheme

_TAB_SIZE = 4  # Syntax's default, as rich's CodeBlock uses it
LIKELY_LEXERS = ("python", "bash", "text")  # what front.warmup builds ahead


@lru_cache(maxsize=1)
def _parsers() -> tuple[MarkdownIt, MarkdownIt, MarkdownIt]:
    # The rules rich's Markdown enables; parsing is stateless, so one parser serves
    # all: the whole parser; its block stage alone (``inline`` tokens left
    # unparsed); and the rest of its core chain, run later on settled block tokens.
    return (MarkdownIt().enable("strikethrough").enable("table"),
            MarkdownIt().enable("strikethrough").enable("table").disable("inline"),
            MarkdownIt().enable("strikethrough").enable("table").disable(
                ["normalize", "block"]))


def parse(markup: str) -> list[Token]:
    """What ``Markdown(markup)`` parses ``markup`` into."""
    return _parsers()[0].parse(markup)


def block_parse(markup: str, env: dict[str, object]) -> list[Token]:
    """markdown-it's block stage alone (``inline`` tokens keep their text)."""
    return _parsers()[1].parse(markup, env)


def complete(tokens: list[Token], env: dict[str, object]) -> list[Token]:
    """Finish ``block_parse`` tokens (with the ``env`` of that parse) as ``parse``
    would: the rest of the core chain reads and fills only the inline tokens."""
    inline_pass = _parsers()[2]
    state = StateCore("", inline_pass, env)
    state.tokens = [token for token in tokens if token.type == "inline"]
    inline_pass.core.process(state)
    return tokens


@lru_cache(maxsize=64)
def lexer(name: str) -> Lexer:
    """The lexer ``Syntax`` builds for ``name`` ("text" when unknown), once per name:
    a live preview asks for every prefix of a fence's language as it streams in."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=_TAB_SIZE)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=_TAB_SIZE)


@lru_cache(maxsize=8)
def theme(name: str) -> SyntaxTheme:
    """One ``SyntaxTheme`` per name (it caches token styles as it goes)."""
    return Syntax.get_theme(name)


def warm(code_theme: str = "monokai") -> None:
    """Build the parser, the likely lexers and the theme (``front.warmup``'s thread)."""
    _parsers()
    for name in LIKELY_LEXERS:
        lexer(name)
    theme(code_theme)


CUT_MARK = "…"  # ends a code line too wide for the terminal


class _CodeBlock(CodeBlock):
    """rich's ``CodeBlock``, given the cached lexer and theme instead of their names.

    Unlike rich's, never soft-wrapped and never indented: a wrapped line, or the
    one-column padding rich puts before every line, changes code copied from the
    terminal (Python stops parsing). A line wider than the terminal is cut, and
    ends with ``CUT_MARK`` so the cut shows."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = _cut_wide_lines(str(self.text).rstrip().expandtabs(_TAB_SIZE), options.max_width)
        yield Syntax(code, lexer(self.lexer_name), theme=theme(self.theme),
                     word_wrap=False, padding=(1, 0))


def _cut_wide_lines(code: str, width: int) -> str:
    """Each line at most ``width`` cells, a cut one ending with ``CUT_MARK``."""
    from rich.cells import cell_len, set_cell_size

    if width < 2:
        return code
    return "\n".join(line if cell_len(line) <= width else
                     set_cell_size(line, width - 1) + CUT_MARK for line in code.split("\n"))


class FastMarkdown(Markdown):
    """``Markdown(markup, code_theme)`` parsed by the shared parser (or given its tokens)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock}

    def __init__(self, markup: str, code_theme: str = "monokai", *,
                 parsed: list[Token] | None = None) -> None:
        # Markdown.__init__'s attributes, without its parser construction.
        self.markup = markup
        self.parsed = parse(markup) if parsed is None else parsed
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
