"""A tiny terminal emulator: enough of VT100 to replay what rich's Live writes.

It keeps every line ever written (scrollback plus screen) and understands what
``rich.live`` uses to redraw: CR, LF, cursor up (CSI n A), erase line (CSI 2 K)
and cursor show/hide. Styling sequences (SGR, OSC 8 links) are kept glued to the
Styling is tracked as state (SGR codes since the last reset, the current OSC 8
link target without its random id) and stored in every cell, so two outputs
with the same final screen compare equal, colours included. Any other escape
raises, so a test notices.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"(?P<sgr>\x1b\[[0-9;]*m)|(?P<osc>\x1b\]8;[^;\x1b\x07]*;(?P<url>[^\x1b\x07]*)(?:\x1b\\|\x07))"
    r"|(?P<up>\x1b\[(?P<n>\d*)A)|(?P<erase>\x1b\[2K)|(?P<cursor>\x1b\[\?25[lh])"
    r"|(?P<cr>\r)|(?P<lf>\n)|(?P<esc>\x1b)|(?P<text>[^\x1b\r\n]+)"
)


class Screen:
    """Feed it terminal output; ``lines()`` is what a user would see, top to bottom."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = [[]]
        self.row = 0
        self.col = 0
        self._style = ""  # SGR codes in effect
        self._link = ""  # OSC 8 target in effect

    def feed(self, data: str) -> Screen:
        for match in _TOKEN.finditer(data):
            kind = match.lastgroup
            value = match.group(0)
            if kind == "sgr":
                self._style = "" if value in ("\x1b[0m", "\x1b[m") else self._style + value
            elif kind == "osc":
                url = match.group("url")
                self._link = f"<{url}>" if url else ""
            elif kind == "up":
                self.row = max(0, self.row - int(match.group("n") or 1))
            elif kind == "erase":
                self.rows[self.row] = []
            elif kind == "cr":
                self.col = 0
            elif kind == "lf":
                self.row += 1
                self.col = 0
                if self.row == len(self.rows):
                    self.rows.append([])
            elif kind == "text":
                self._write(value)
            elif kind == "esc":
                raise ValueError(f"unexpected escape at {data[match.start():match.start() + 12]!r}")
        return self

    def _write(self, text: str) -> None:
        line = self.rows[self.row]
        for ch in text:
            cell = f"{self._style}{self._link}{ch}" if self._style or self._link else ch
            if self.col < len(line):
                line[self.col] = cell
            else:
                line.extend([" "] * (self.col - len(line)))
                line.append(cell)
            self.col += 1

    def lines(self) -> list[str]:
        out = ["".join(row) for row in self.rows]
        while out and not out[-1]:
            out.pop()
        return out


def screen_of(output: str) -> list[str]:
    return Screen().feed(output).lines()
