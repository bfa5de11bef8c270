"""A Markdown code block drawn as rich draws it, without rich's layers in between.

rich's ``CodeBlock`` yields ``Syntax(code, lexer, theme=..., word_wrap=True,
padding=1)``: a highlighted ``Text`` split into lines, each line wrapped and
rendered on its own (``render_lines``), styled again, wrapped in ``Segments``,
then in a ``Padding`` that renders every line once more. For a line that needs
no wrapping that all reduces to one segment per styled token, the unstyled runs
(padding included) merged, between a one-space margin on either side. Here those
segments are built straight from the lexer's tokens. Anything else (a line
that wraps, tabs, characters that are not printable ASCII, a transparent theme,
a fixed height) is left to ``Syntax`` itself. A test compares the output with
``Syntax``'s byte for byte over languages, themes, widths and colour systems.
"""

from __future__ import annotations

from functools import lru_cache

from pygments.lexer import Lexer
from pygments.token import _TokenType
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax, SyntaxTheme

_TAB_SIZE = 4  # Syntax's default, as CodeBlock uses it
_LINE = Segment.line()


class CodeView:
    """``Syntax(code, lexer, theme=theme, word_wrap=True, padding=1)``, drawn cheaply."""

    def __init__(self, code: str, lexer: Lexer, theme: SyntaxTheme) -> None:
        self.code = code
        self.lexer = lexer
        self.theme = theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = self.segments(options)
        if segments is None:
            yield self.syntax()
        else:
            yield from segments

    def syntax(self) -> Syntax:
        """The ``Syntax`` this stands for (what draws what ``segments`` does not)."""
        return Syntax(self.code, self.lexer, theme=self.theme, word_wrap=True, padding=1)

    def segments(self, options: ConsoleOptions) -> list[Segment] | None:
        """The block's segments, or None where only ``Syntax`` knows the answer."""
        width = options.max_width
        code_width = width - 2  # one column of padding either side
        base = self.theme.get_background_style()
        code = self.code
        if (options.height is not None or code_width < 1 or base.transparent_background
                or not code or code.endswith("\n")):
            return None
        lines = _lines(self.lexer, code.expandtabs(_TAB_SIZE) + "\n", code_width,
                       base, _palette(self.theme))
        if lines is None:
            return None
        edge = Segment(" ", base)
        blank = Segment(" " * width + "\n", base)
        out = [blank]
        for line in lines:
            out.append(edge)
            out.extend(line)
            out.append(edge)
            out.append(_LINE)
        out.append(blank)
        return out


class _Palette(dict[_TokenType, Style | None]):
    """Token type -> background + token style (None: the token has no style), per theme."""

    def __init__(self, theme: SyntaxTheme) -> None:
        super().__init__()
        self._theme = theme
        self._base = theme.get_background_style()

    def __missing__(self, ttype: _TokenType) -> Style | None:
        style = self._theme.get_style_for_token(ttype)
        combined = self[ttype] = (self._base + style) if style else None
        return combined


@lru_cache(maxsize=16)
def _palette(theme: SyntaxTheme) -> _Palette:
    """The theme's palette (themes come from ``md.theme``'s cache: a handful per process)."""
    return _Palette(theme)


def _lines(lexer: Lexer, text: str, code_width: int, base: Style,
           styles: _Palette) -> list[list[Segment]] | None:
    """Each line's segments, padded to ``code_width``; None if a line would wrap or
    holds anything but printable ASCII (one cell per character)."""
    lines: list[list[Segment]] = []
    line: list[Segment] = []
    plain = ""  # unstyled text not yet emitted (rich merges it into one segment)
    length = 0
    for ttype, value in lexer.get_tokens(text):
        style = styles[ttype]
        first = True
        for part in value.split("\n"):
            if not first:  # a line ended
                plain += " " * (code_width - length)
                if plain:
                    line.append(Segment(plain, base))
                lines.append(line)
                line, plain, length = [], "", 0
            first = False
            if not part:
                continue
            if not (part.isascii() and part.isprintable()):
                return None
            length += len(part)
            if length > code_width:
                return None
            if style is None:
                plain += part
            else:
                if plain:
                    line.append(Segment(plain, base))
                    plain = ""
                line.append(Segment(part, style))
    if line or plain:  # text after the final newline: not the shape Syntax splits
        return None
    return lines

