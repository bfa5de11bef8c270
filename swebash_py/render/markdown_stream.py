"""Streaming markdown: settled blocks go to scrollback once, the tail to a live preview.

Model text is untrusted: every chunk is neutralized (escape sequences and
control characters removed) before it reaches the splitter, once per chunk.
The Markdown machinery (``blocks``, ``md``: rich.markdown, markdown-it, Pygments)
is imported with the first text, not with the renderer: the REPL makes its
renderer before its prompt, and ``front.warmup`` loads it while the user types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, NewLine, RenderableType, RenderResult

from swebash_py.render.settling import screenful
from swebash_py.text.sanitize import StreamNeutralizer

if TYPE_CHECKING:
    from markdown_it.token import Token

    from swebash_py.render.blocks import Block
    from swebash_py.render.md import FastMarkdown

Sink = Callable[..., None]


class MarkdownStream:
    """One text block of the answer; settled blocks go to ``sink`` (rendered once there)."""

    def __init__(self, sink: Sink, *, code_theme: str = "monokai") -> None:
        self._sink = sink
        self._code_theme = code_theme
        from swebash_py.render.blocks import BlockSplitter

        self._splitter = BlockSplitter(self._markdown)
        self._clean = StreamNeutralizer()
        self.printed = False

    def _markdown(self, source: str, *, parsed: list[Token] | None = None) -> FastMarkdown:
        from swebash_py.render.md import FastMarkdown

        return FastMarkdown(source, code_theme=self._code_theme, parsed=parsed)

    def feed(self, text: str) -> None:
        """Add a chunk (cheap: nothing is parsed or rendered here)."""
        text = self._clean.feed(text)
        if text:
            self._splitter.add(text)

    def settle(self) -> None:
        """Hand on the blocks settled since the last call (once per frame)."""
        self._print(self._splitter.settle())

    def finish(self) -> None:
        """The text ended: hand on what is left."""
        rest = self._clean.finish()
        if rest:
            self._splitter.add(rest)
            self._print(self._splitter.settle())
        self._print(self._splitter.finish())

    def _print(self, blocks: Sequence[Block]) -> None:
        if not blocks:
            return
        out: list[RenderableType] = []
        for block in blocks:
            if block.gap_before:
                out.append(NewLine())
            out.append(block.markdown)
        self._sink(*out)
        self.printed = True

    @property
    def pending(self) -> bool:
        """True when there is unsettled text to preview."""
        return bool(self._splitter.tail.strip())

    def preview(self) -> TailPreview:
        return TailPreview(self._splitter.tail, self._splitter.open_fence, self._code_theme)


class TailPreview:
    """The unsettled tail as markdown; only its last screenful when it is long."""

    def __init__(self, tail: str, open_fence: bool, code_theme: str) -> None:
        self._tail = tail
        self._open_fence = open_fence
        self._code_theme = code_theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = screenful(self._tail, console.height, console.height * options.max_width,
                         self._open_fence)
        from swebash_py.render.md import FastMarkdown

        yield FastMarkdown(text, code_theme=self._code_theme)
