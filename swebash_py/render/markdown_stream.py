"""Streaming markdown: settled blocks go to scrollback once, the tail to a live preview."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown

from swebash_py.render.blocks import Block, BlockSplitter

PREVIEW_CHARS = 6000  # the preview renders at most this much of a long unsettled tail


class MarkdownStream:
    """One text block of the answer, rendered incrementally on ``console``."""

    def __init__(self, console: Console, *, code_theme: str = "monokai") -> None:
        self._console = console
        self._code_theme = code_theme
        self._splitter = BlockSplitter(self._markdown)
        self.printed = False

    def _markdown(self, source: str) -> Markdown:
        return Markdown(source, code_theme=self._code_theme)

    def feed(self, text: str) -> None:
        """Add a chunk; print whatever blocks it settled."""
        self._print(self._splitter.feed(text))

    def finish(self) -> None:
        """The text ended: print what is left."""
        self._print(self._splitter.finish())

    def _print(self, blocks: list[Block]) -> None:
        for block in blocks:
            if block.gap_before:
                self._console.print()
            self._console.print(block.markdown)
            self.printed = True

    @property
    def pending(self) -> bool:
        """True when there is unsettled text to preview."""
        return bool(self._splitter.tail.strip())

    def preview(self) -> TailPreview:
        return TailPreview(self._splitter.tail, self._splitter.open_fence, self._code_theme)


class TailPreview:
    """The unsettled tail as markdown, cut to its end when it is long."""

    def __init__(self, tail: str, open_fence: bool, code_theme: str) -> None:
        if len(tail) > PREVIEW_CHARS:
            opener = tail[: tail.find("\n") + 1] if open_fence else ""
            cut = tail.find("\n", len(tail) - PREVIEW_CHARS) + 1
            tail = opener + tail[cut:]
        self._tail = tail
        self._code_theme = code_theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Markdown(self._tail, code_theme=self._code_theme)
