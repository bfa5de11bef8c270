"""Shared helpers for render tests: consoles, a fake clock, event scripts."""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown

from swebash_py.events import BlockDelta, BlockStart, BlockStop, TurnComplete, TurnStart
from swebash_py.render.console import Renderer


def make_console(color_system: str | None = None, width: int = 80, height: int = 25) -> Console:
    return Console(
        file=io.StringIO(), width=width, height=height, color_system=color_system,  # type: ignore[arg-type]
        force_terminal=True, legacy_windows=False,
    )


def output(console: Console) -> str:
    return console.file.getvalue()  # type: ignore[attr-defined]


class FakeClock:
    """Advances by ``step`` on every reading, so throttled refreshes still happen."""

    def __init__(self, step: float = 0.01) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def renderer(console: Console, **options: object) -> Renderer:
    options.setdefault("clock", FakeClock())
    options.setdefault("tick", None)
    return Renderer(console, **options)  # type: ignore[arg-type]


class RichMarkdown(Markdown):
    """rich's own ``Markdown`` (its parser, its elements) with our one change: code
    blocks are never soft-wrapped or indented (``render.md._CodeBlock``)."""

    def __init__(self, markup: str, *args: Any, **kwargs: Any) -> None:
        from swebash_py.render.md import FastMarkdown

        super().__init__(markup, *args, **kwargs)
        self.elements = FastMarkdown.elements


def whole_render(text: str, color_system: str | None = None, width: int = 80) -> str:
    console = make_console(color_system, width)
    console.print(RichMarkdown(text))
    return output(console)


def text_events(chunks: Iterable[str]) -> list[object]:
    chunks = list(chunks)
    return [
        TurnStart(model="m"),
        BlockStart(index=0, kind="text"),
        *(BlockDelta(index=0, kind="text", text=c) for c in chunks),
        BlockStop(index=0, kind="text", content="".join(chunks)),
        TurnComplete(stop_reason="stop", text="".join(chunks)),
    ]


def streamed_render(chunks: Iterable[str], color_system: str | None = None,
                    width: int = 80) -> str:
    console = make_console(color_system, width)
    r = renderer(console)
    for event in text_events(chunks):
        r.handle(event)
    return output(console)


def chunked(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


ROOT = Path(__file__).resolve().parents[2]
