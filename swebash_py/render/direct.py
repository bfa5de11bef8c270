"""Simple Markdown documents drawn without rich's element machinery.

``Markdown.__rich_console__`` walks the tokens through a context, a style stack
and one element object per block, each rendered through ``console.render``:
some 20 us of bookkeeping per block before any text is drawn. A document made
only of the common blocks (headings, paragraphs, code blocks, bullet and
ordered lists whose items are one line of one paragraph each, tables whose
cells are one line each and that fit: ``table``) with only
emphasis, strong, strikethrough, inline code and soft breaks inside is drawn
here straight from its tokens: the same ``Text`` spans (the same style stack
sums), the same renderers (``oneline``, ``CodeView``, ``console.render`` of the
text when it wraps) and the same blank lines (rich's loop puts one before an
element it draws when the element last left asks for one: all of these do, and
a list's items leave one before the list). Any other block is drawn by rich's
loop on its tokens alone, started in the state the blocks before it left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.control import strip_control_codes
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from swebash_py.render import elements
from swebash_py.render.code import CodeView
from swebash_py.render.oneline import one_line
from swebash_py.render.table import Cell, justify_of, make_cell, table_segments
from swebash_py.render.tokens import Tok as Token

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from rich.syntax import SyntaxTheme

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}  # h1 centred, the others left
_INLINE = {"text", "softbreak", "code_inline", "strong_open", "strong_close", "em_open",
           "em_close", "s_open", "s_close"}
_LISTS = {"bullet_list_open", "ordered_list_open"}
_SELF_SPACED = {*_LISTS, "table_open"}  # drawn with their own blank line, or by rich
_TABLE = {"thead_open", "thead_close", "tbody_open", "tbody_close", "tr_open", "tr_close",
          "th_open", "th_close", "td_open", "td_close"}
_LINE = Segment.line()
_OWE_LINE = Token("html_block", "", 0)  # an ``UnknownElement``: draws nothing, owes a line


def _new_line_after(token: Token) -> bool:
    """Whether the element ``token`` opens owes a blank line before the next one."""
    return elements.new_line_after(token.type)


def simple(tokens: Sequence[Token]) -> bool:
    """True when every block of ``tokens`` is one this module draws."""
    i = 0
    while i < len(tokens):
        end = block_end(tokens, i)
        if not simple_block(tokens, i, end):
            return False
        i = end
    return True


def block_end(tokens: Sequence[Token], i: int) -> int:
    """Where the top-level block starting at ``tokens[i]`` ends (exclusive)."""
    if tokens[i].nesting != 1:
        return i + 1
    j = i + 1
    while not (tokens[j].level == 0 and tokens[j].nesting == -1):
        j += 1
    return j + 1


def simple_block(tokens: Sequence[Token], i: int, end: int) -> bool:
    """True when ``tokens[i:end]``, one top-level block, is one this module draws."""
    kind = tokens[i].type
    if kind in ("fence", "code_block"):
        return True
    if kind == "paragraph_open" or (kind == "heading_open" and tokens[i].tag in _HEADINGS):
        return end == i + 3 and _inline(tokens, i + 1)
    if kind == "table_open":
        return all(tokens[k].type in _TABLE or _inline(tokens, k, empty=True)
                   for k in range(i + 1, end - 1))
    if kind not in _LISTS or (end - i - 2) % 5 or end - i < 7:
        return False
    return all(tokens[k].type == "list_item_open" and tokens[k + 1].type == "paragraph_open"
               and _inline(tokens, k + 2) and tokens[k + 4].type == "list_item_close"
               for k in range(i + 1, end - 1, 5))


def _inline(tokens: Sequence[Token], i: int, *, empty: bool = False) -> bool:
    token = tokens[i] if i < len(tokens) else None
    return (token is not None and token.type == "inline" and (empty or bool(token.children))
            and all(child.type in _INLINE for child in token.children or ()))


class Direct:
    """Draws a ``simple`` token list as rich's ``Markdown`` draws it."""

    def __init__(self, console: Console, options: ConsoleOptions, base: Style,
                 code: Callable[[str, str], tuple[Lexer, SyntaxTheme]]) -> None:
        self._console = console
        self._options = options.update(height=None)
        self._stack = [base]
        self._code = code
        self._style = console.get_style

    def segments(self, tokens: list[Token],
                 rich: Callable[[list[Token]], Iterable[Segment]]) -> list[Segment]:
        """The document's segments; ``rich`` draws the blocks this module does not
        (its loop, on those tokens alone)."""
        out: list[Segment] = []
        i, n = 0, len(tokens)
        new_line = False  # what the element left last asks for (see ``gaps``)
        while i < n:
            token = tokens[i]
            end = block_end(tokens, i)
            kind = token.type
            if not simple_block(tokens, i, end) or (
                    kind in _SELF_SPACED and not self._self_spaced(token, tokens[i + 1:end - 1],
                                                                   out)):
                # rich's loop starts with no blank line owed; an element it draws
                # nothing for, but which owes one after it, puts it in our state.
                out.extend(rich([_OWE_LINE, *tokens[i:end]] if new_line else tokens[i:end]))
            elif kind not in _SELF_SPACED:  # a list or table added itself, its blank line first
                if new_line:
                    out.append(_LINE)
                if kind in ("fence", "code_block"):
                    self._fence(token, out)
                else:
                    paragraph = kind == "paragraph_open"
                    name = "markdown.paragraph" if paragraph else f"markdown.{token.tag}"
                    justify = "center" if token.tag == "h1" else "left"
                    self._text(name, tokens[i + 1], out, justify)
            new_line = _new_line_after(token)
            i = end
        return out

    def _push(self, name: str) -> Style:
        style = self._stack[-1] + self._style(name, default="none")
        self._stack.append(style)
        return style

    def _runs(self, name: str | None, inline: Token) -> list[tuple[str, Style]]:
        """The element's text as appended to its ``Text``: (piece, style) runs,
        styled as rich's context styles them (``name``: the element's own style,
        None for an element that enters none, like a table cell)."""
        self._push(name or "none")
        runs: list[tuple[str, Style]] = []
        stack = self._stack
        for child in inline.children or ():
            kind = child.type
            if kind == "text":
                runs.append((child.content, stack[-1]))
            elif kind == "softbreak":
                runs.append((" ", stack[-1]))
            elif kind == "code_inline":
                runs.append((child.content, self._push("markdown.code")))
                stack.pop()
            elif child.nesting == 1:
                self._push(f"markdown.{child.tag}")
            else:
                stack.pop()
        stack.pop()
        return runs

    def _text(self, name: str, inline: Token, out: list[Segment], justify: str) -> None:
        runs = self._runs(name, inline)
        line = one_line_runs(runs, self._options.max_width, justify)
        if line is None:
            text = Text(justify=justify)  # type: ignore[arg-type]
            for piece, style in runs:
                text.append(piece, style)
            fast = one_line(self._console, self._options, text)
            line = list(self._console.render(text, self._options) if fast is None else fast)
        out.extend(line)

    def _fence(self, token: Token, out: list[Segment]) -> None:
        name = (token.info or "").partition(" ")[0] or "text"
        code = strip_control_codes(token.content).rstrip()
        view = CodeView(code, *self._code(name, code))
        segments = view.segments(self._options)  # what rendering the view yields
        out.extend(self._console.render(view.syntax(), self._options) if segments is None
                   else segments)

    def _self_spaced(self, token: Token, inner: Sequence[Token], out: list[Segment]) -> bool:
        if token.type == "table_open":
            return self._table(inner, out)
        return self._list(token, inner, out)

    def _table(self, inner: Sequence[Token], out: list[Segment]) -> bool:
        """A table: its own blank line first (its cells left one), then the table
        (``table``); False (nothing added) when only rich's ``Table`` can draw it."""
        rows: list[list[Cell]] = []
        for k, token in enumerate(inner):
            if token.type == "tr_open":
                rows.append([])
            elif token.type in ("th_open", "td_open"):
                header = token.type == "th_open"
                if not rows or header != (len(rows) == 1):  # the first row is the header
                    return False
                cell = make_cell(self._runs(None, inner[k + 1]), justify_of(token), header)
                if cell is None:
                    return False
                rows[-1].append(cell)
        segments = table_segments(self._console, self._options, rows) if rows else None
        if segments is None:
            return False
        out.append(_LINE)
        out.extend(segments)
        return True

    def _list(self, token: Token, items: Sequence[Token], out: list[Segment]) -> bool:
        """A list: its own blank line first (its items left one), then each item's
        lines after its mark (rich's ``ListItem.render_bullet``/``render_number``);
        False (nothing added) when the width leaves no room for the text."""
        console, options = self._console, self._options
        count = len(items) // 5
        if token.type == "bullet_list_open":
            indent = 3
            style = console.get_style("markdown.item.bullet", default="none")
            marks = [Segment(" • ", style)] * count
        else:
            start = int(token.attrs.get("start", 1))
            indent = len(str(start + count)) + 2
            style = console.get_style("markdown.item.number", default="none")
            marks = [Segment(f"{start + k}".rjust(indent - 1) + " ", style)
                     for k in range(count)]
        if options.max_width <= indent:
            return False
        padding = Segment(" " * indent, style)
        narrow = options.update(width=options.max_width - indent)
        out.append(_LINE)
        for k in range(count):
            for n, line in enumerate(self._item_lines(items[5 * k + 2], narrow)):
                out.append(padding if n else marks[k])
                out.extend(line)
                out.append(_LINE)
        return True

    def _item_lines(self, inline: Token, narrow: ConsoleOptions) -> list[list[Segment]]:
        """An item's paragraph as ``console.render_lines(item, style=item's)`` gives it:
        built directly when it fits on one line, else wrapped by rich's ``Text``."""
        item_style = self._push("markdown.item")
        runs = self._runs("markdown.paragraph", inline)
        self._stack.pop()
        segments = one_line_runs(runs, narrow.max_width)
        if segments is None:
            text = Text(justify="left")
            for piece, style in runs:
                text.append(piece, style)
            return self._console.render_lines(text, narrow, style=item_style)
        line = segments[:-1]  # without its new line
        return [[Segment(t, item_style + s) for t, s, _ in line] if item_style else line]


_NULL = Style.null()


def one_line_runs(runs: list[tuple[str, Style]], width: int,
                  justify: str = "left") -> list[Segment] | None:
    """What ``oneline.one_line`` gives for the ``Text`` these runs append to (one
    span per styled run, none for an unstyled one), built without the ``Text``:
    ``Text.render`` cuts at span edges only, so unstyled runs and the padding
    between two edges are one segment. ``justify`` "center" pads both sides as
    ``Lines.justify`` does (after stripping the end: so only text with nothing to
    strip is taken). None when it would not fit on one line or holds anything but
    printable characters (then the ``Text`` decides)."""
    plain = "".join(piece for piece, _ in runs)
    if not plain.isprintable() or (justify == "center" and plain != plain.rstrip()):
        return None
    cells = cell_len(plain)
    if cells > width:
        return None
    out: list[Segment] = []
    left = (width - cells) // 2 if justify == "center" else 0
    pending = " " * left  # unstyled text since the last span edge
    for piece, style in runs:
        if not piece:
            continue
        if style:
            if pending:
                out.append(Segment(pending, _NULL))
                pending = ""
            out.append(Segment(piece, style))
        else:
            pending += piece
    pending += " " * (width - cells - left)
    if pending:
        out.append(Segment(pending, _NULL))
    out.append(_LINE)
    return out
