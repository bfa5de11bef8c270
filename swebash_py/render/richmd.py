"""rich's ``Markdown`` with our cheaper elements: what ``md.FastMarkdown`` falls back to.

Imported only when a document holds a block ``direct`` does not draw (a quote,
a rule, a link, a nested list, ...): importing ``rich.markdown`` pulls in
``rich.table`` and more, which the common blocks do not need. The element
subclasses are rich's own, drawn cheaply where rich's result is known:
code blocks by ``code.CodeView`` (lexer and theme from ``md``'s caches),
headings, paragraphs and list items that fit on one line without rich's
wrapping (``oneline``).
"""

from __future__ import annotations

from typing import ClassVar

from markdown_it.token import Token
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

from swebash_py.render.code import CodeView
from swebash_py.render.md import code_lexer, theme
from swebash_py.render.oneline import one_line


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


class RichMarkdown(Markdown):
    """``Markdown`` with the elements above, given its tokens (no parser built)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock,
        "paragraph_open": _Paragraph, "heading_open": _Heading, "list_item_open": _ListItem,
    }

    def __init__(self, markup: str, code_theme: str, parsed: list[Token], *,
                 style: str = "none", justify: str | None = None,
                 inline_code_lexer: str | None = None,
                 inline_code_theme: str | None = None, hyperlinks: bool = True) -> None:
        # Markdown.__init__ without its parser construction (same attributes).
        self.markup = markup
        self.parsed = parsed
        self.code_theme = code_theme
        self.justify = justify  # type: ignore[assignment]
        self.style = style
        self.hyperlinks = hyperlinks
        self.inline_code_lexer = inline_code_lexer
        self.inline_code_theme = inline_code_theme or code_theme
