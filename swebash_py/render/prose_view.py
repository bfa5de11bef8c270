"""``Prose``: plain paragraphs drawn as rich's ``Markdown`` draws them (see ``prose``)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from swebash_py.render.oneline import one_line


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
