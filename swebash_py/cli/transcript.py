"""``ai sessions show``: a stored transcript, drawn a turn at a time.

The turns are read a page at a time: the first few are drawn and flushed one by
one (the first screen of a 5,000-turn session costs what its first turns cost),
the rest a page per Markdown; memory holds one page, never the whole transcript. On a
terminal each turn is drawn by rich's Markdown (``render.md``, the one Markdown
path) at the terminal's width; piped, it is the Markdown itself, the same bytes
as ``ai sessions export``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any, TextIO

from swebash_py.store import export
from swebash_py.store.records import SessionInfo

FIRST_PAGE = 10  # turns: small, so the first screen does not wait for a long page
PAGE = 100

Draw = Callable[[str], None]


def drawer(out: TextIO, rendered: bool) -> Draw:
    """A function that writes one piece of Markdown to ``out`` and flushes it."""
    if not rendered:
        def write(markdown: str) -> None:
            out.write(markdown)
            out.flush()

        return write
    from rich.console import Console

    from swebash_py.render.md import FastMarkdown

    # ``out`` is the pager's pipe: drawn for the terminal the pager shows it on
    console = Console(file=out, force_terminal=True,
                      width=shutil.get_terminal_size().columns)
    console.on_broken_pipe = _reader_gone  # type: ignore[method-assign]

    def draw(markdown: str) -> None:
        console.print(FastMarkdown(markdown))
        console.print()
        out.flush()

    return draw


def _reader_gone() -> None:
    """The user quit the pager: rich would exit 1 and point stdout at /dev/null; we
    stop drawing (``cli.pager`` ends quietly) and the terminal stays ours."""
    raise BrokenPipeError


def show(store: Any, info: SessionInfo, draw: Draw) -> None:
    """Draw the session's header, then its turns in order, a page at a time."""
    draw(export.markdown_header(info))
    first = store.turns_page(info.id, 0, FIRST_PAGE)
    for turn in first:  # the first screen: each turn shown as soon as it is drawn
        draw(export.turn_markdown(turn))
    after = first[-1].seq if first else None
    while after is not None and (page := store.turns_page(info.id, after, PAGE)):
        # the rest a page at a time (one Markdown per page: a turn each costs twice)
        draw("".join(export.turn_markdown(turn) for turn in page))
        after = page[-1].seq
