"""The streamed text ``blocks.BlockSplitter`` holds until it settles.

``add`` appends a chunk (a ``\\r`` at its end is held back until the next chunk
says whether it is half of ``\\r\\n``; line ends become ``\\n``), in linear total
time. ``settle`` parses only complete lines, and rations parsing (see
``_worth_parsing``) so a long unsettled block does not make the cost quadratic."""

from __future__ import annotations

from typing import Generic, TypeVar

SMALL = 4096  # below this many unsettled chars, check on every completed line

SettledT = TypeVar("SettledT")


class SettlingText(Generic[SettledT]):
    """Unsettled text and when to look at it again; subclasses say what settles."""

    def __init__(self) -> None:
        self._tail = ""  # unsettled text, always starting at a line boundary
        self._held_cr = False
        self._parsed_len = 0  # len of the complete-lines prefix at the last parse
        self._prev_new_line = False  # rich starts a document without a gap
        self._unsettled_from = 0  # where text added since the last settle starts

    @property
    def tail(self) -> str:
        """The unsettled text (what a live preview shows)."""
        return self._tail

    def add(self, chunk: str) -> None:
        """Add a chunk without looking for settled blocks (cheap)."""
        if self._held_cr:
            chunk = "\r" + chunk
            self._held_cr = False
        if chunk.endswith("\r"):
            chunk, self._held_cr = chunk[:-1], True
        if "\r" in chunk:
            chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
        tail, self._tail = self._tail, ""
        tail += chunk  # a lone reference: CPython grows it in place (linear total)
        self._tail = tail

    def settle(self) -> list[SettledT]:
        """The blocks that text added since the last call settled (often none)."""
        start, self._unsettled_from = self._unsettled_from, len(self._tail)
        if self._tail.find("\n", max(start - 1, 0)) < 0 or not self._worth_parsing(start):
            return []
        blocks = self._settle(final=False)
        self._unsettled_from = len(self._tail)
        return blocks

    def finish(self) -> list[SettledT]:
        """The text ended: everything left is settled."""
        if self._held_cr:
            self._tail += "\n"
            self._held_cr = False
        return self._settle(final=True)

    def _worth_parsing(self, start: int) -> bool:
        """Small tails are parsed at every completed line; larger ones when they grew
        by a quarter since the last parse or a blank line came (a block may end)."""
        complete = self._tail.rfind("\n") + 1
        if complete < SMALL:
            return True
        grown = complete - self._parsed_len
        return grown * 4 >= complete or "\n\n" in self._tail[max(start - 1, 0):complete]

    def _settle(self, *, final: bool) -> list[SettledT]:
        raise NotImplementedError


def screenful(tail: str, max_lines: int, max_chars: int, open_fence: bool) -> str:
    """The end of ``tail``: at most ``max_lines`` lines and about ``max_chars`` chars.

    Costs O(what is kept), not O(len(tail)). An open fence keeps its opening line
    so the kept lines still render as code.
    """
    start = len(tail)
    for _ in range(max_lines):
        start = tail.rfind("\n", max(0, len(tail) - max_chars), start - 1)
        if start < 0:
            break
    if start <= 0:
        start = 0 if len(tail) <= max_chars else len(tail) - max_chars
        if start == 0:
            return tail
    else:
        start += 1
    opener = tail[: tail.find("\n", 0, 200) + 1] if open_fence else ""
    return opener + tail[start:]
