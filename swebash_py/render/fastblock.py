"""markdown-it's block tokens for the commonest answer shapes, made without its block parser.

markdown-it's block stage tries a chain of rules at every line, and a bullet list
recurses into a whole parser state per item (~0.1 ms per item). ``parse`` builds
the same block tokens directly (the tokens ``md.BLOCK_PARSER`` gives: ``inline``
tokens with empty children) for a document made only of shapes where CommonMark
leaves no choice:

- ATX headings: ``#`` to ``######``, one space, text not ending in ``#``;
- paragraphs of lines starting with an ASCII letter, ``(``, ``{``, a quote, a digit
  run not followed by ``.`` or ``)``, `` `x`` or ``**x`` (nothing that starts or
  interrupts a block);
- fences opened by exactly three backticks at column 0 and a one-word info string,
  closed by exactly three backticks (or running to the end), any lines between
  except another possible closing line;
- bullet lists of ``- `` items of one paragraph line each (loose when empty
  lines come between items);
- tables of ``| a | b |`` rows (words, digits, a little punctuation in the cells),
  a ``|---|:--:|`` delimiter row, at least one body row, every row as wide;
- empty lines between them; a paragraph, list or table ends at an empty line (or the
  end).

No line outside a fence may start or end with white space (but spaces at the end of
a last line without a newline, which markdown-it strips); no tab, NUL, CR,
vertical tab or form feed anywhere. Anything else (indentation, lazy continuation,
``*``/``+`` bullets, ordered lists, quotes, other tables, HTML, setext underlines,
references, ...) returns None and goes to markdown-it. A test compares the
tokens with markdown-it's over many generated and random documents.
"""

from __future__ import annotations

import re

from swebash_py.render.tokens import Tok as Token

_BAD_CHAR = re.compile(r"[\t\0\r\x0b\x0c]")
_HEADING = re.compile(r"(#{1,6}) (\S(?:.*[^\s#])?)\Z")
_PARA = re.compile(r"(?:[A-Za-z({\"']|\d+(?![\d.)])|`[^`]|\*\*[A-Za-z0-9])")
_FENCE_OPEN = re.compile(r"```([A-Za-z0-9_+-]*)\Z")
_MAYBE_CLOSE = re.compile(r" {0,3}`{3,}[ \t]*\Z")
_ROW = re.compile(r"\| [A-Za-z0-9](?:[A-Za-z0-9 .,()'-]*[A-Za-z0-9.)])?"
                  r"(?: \| [A-Za-z0-9](?:[A-Za-z0-9 .,()'-]*[A-Za-z0-9.)])?)* \|\Z")
_DELIMITER = re.compile(r"\|(?::?-{3,}:?\|)+\Z")
_ALIGN = {(True, False): "left", (False, True): "right", (True, True): "center"}


def parse(text: str) -> list[Token] | None:
    """``BLOCK_PARSER.parse(text)``'s tokens, or None when ``text`` is not in the
    shape described above."""
    if _BAD_CHAR.search(text):
        return None
    lines = text.split("\n")
    raw_last = None  # the last line, when it has no newline and ends with spaces
    if text.endswith("\n"):
        lines.pop()
    elif lines[-1].endswith(" "):
        # Spaces a block strips from its end (a line still arriving); not in a fence.
        raw_last, lines[-1] = lines[-1], lines[-1].rstrip(" ")
        if not lines[-1]:
            return None  # markdown-it does not count such a last line
    tokens: list[Token] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line:
            i += 1
        elif not _bare(line):
            return None
        elif line[0] == "#":
            i = _heading(lines, i, tokens)
        elif line.startswith("```"):
            i = _fence(lines, i, tokens, text.endswith("\n"), raw_last)
        elif line.startswith("- "):
            i = _list(lines, i, tokens)
        elif line.startswith("| "):
            i = _table(lines, i, tokens)
        else:
            i = _paragraph(lines, i, tokens)
        if i < 0:
            return None
    return tokens


def _bare(line: str) -> bool:
    """A non-empty line that neither starts nor ends with white space."""
    return not (line[0].isspace() or line[-1].isspace())


def _heading(lines: list[str], i: int, tokens: list[Token]) -> int:
    match = _HEADING.match(lines[i])
    if match is None:
        return -1
    marks = match.group(1)
    tag = f"h{len(marks)}"
    tokens.append(Token("heading_open", tag, 1, map=[i, i + 1], markup=marks, block=True))
    tokens.append(Token("inline", "", 0, map=[i, i + 1], level=1, content=match.group(2),
                        children=[], block=True))
    tokens.append(Token("heading_close", tag, -1, markup=marks, block=True))
    return i + 1


def _fence(lines: list[str], i: int, tokens: list[Token], newline_at_end: bool,
           raw_last: str | None) -> int:
    """A fence from line ``i``; one running to an end without a newline lacks its last
    (and keeps that line's spaces: ``raw_last``)."""
    match = _FENCE_OPEN.match(lines[i])
    if match is None:
        return -1
    end, n = i + 1, len(lines)
    while end < n and lines[end] != "```":
        if _MAYBE_CLOSE.match(lines[end]):
            return -1
        end += 1
    if end == n and raw_last is not None:
        return -1 if i == n - 1 else _fence([*lines[:-1], raw_last], i, tokens, False, None)
    content = "".join(line + "\n" for line in lines[i + 1:end])
    if end == n and content and not newline_at_end:
        content = content[:-1]
    stop = min(end + 1, n)
    tokens.append(Token("fence", "code", 0, map=[i, stop], content=content, markup="```",
                        info=match.group(1), block=True))
    return stop


def _paragraph(lines: list[str], i: int, tokens: list[Token]) -> int:
    """A paragraph from line ``i`` to the next empty line (or the end)."""
    end, n = i, len(lines)
    while end < n and lines[end]:
        if not _PARA.match(lines[end]) or not _bare(lines[end]):
            return -1
        end += 1
    span = [i, end]
    tokens.append(Token("paragraph_open", "p", 1, map=span, block=True))
    tokens.append(Token("inline", "", 0, map=list(span), level=1,
                        content="\n".join(lines[i:end]), children=[], block=True))
    tokens.append(Token("paragraph_close", "p", -1, block=True))
    return end


def _list(lines: list[str], i: int, tokens: list[Token]) -> int:
    """A list of one-line ``- `` items, ending at an empty line not followed by another
    item (or at the end); loose when empty lines come between items."""
    rows, n, stop, loose = [], len(lines), i, False
    while stop < n and lines[stop].startswith("- "):
        line = lines[stop]
        if not _PARA.match(line, 2) or not _bare(line):
            return -1
        rows.append(stop)
        stop += 1
        if stop < n and lines[stop].startswith("- "):
            continue
        after = stop
        while after < n and not lines[after]:
            after += 1
        if after == stop and stop < n:
            return -1  # a line of another kind right after an item: lazy continuation
        if after < n and lines[after].startswith("- "):
            loose, stop = True, after
            continue
        stop = after
        break
    tokens.append(Token("bullet_list_open", "ul", 1, map=[i, stop], markup="-", block=True))
    for k, row in enumerate(rows):
        last = rows[k + 1] if k + 1 < len(rows) else stop
        tokens.append(Token("list_item_open", "li", 1, map=[row, last], level=1, markup="-",
                            block=True))
        tokens.append(Token("paragraph_open", "p", 1, map=[row, row + 1], level=2,
                            block=True, hidden=not loose))
        tokens.append(Token("inline", "", 0, map=[row, row + 1], level=3,
                            content=lines[row][2:], children=[], block=True))
        tokens.append(Token("paragraph_close", "p", -1, level=2, block=True, hidden=not loose))
        tokens.append(Token("list_item_close", "li", -1, level=1, markup="-", block=True))
    tokens.append(Token("bullet_list_close", "ul", -1, markup="-", block=True))
    return stop


def _cells(line: str) -> list[str]:
    return line[2:-2].split(" | ")


def _table(lines: list[str], i: int, tokens: list[Token]) -> int:
    """A table from line ``i`` (its head) to the next empty line (or the end)."""
    n = len(lines)
    if i + 2 >= n or not _ROW.match(lines[i]) or not _DELIMITER.match(lines[i + 1]):
        return -1
    head = _cells(lines[i])
    marks = lines[i + 1][1:-1].split("|")
    if len(marks) != len(head):
        return -1
    styles = [_ALIGN.get((mark[0] == ":", mark[-1] == ":")) for mark in marks]
    end = i + 2
    while end < n and lines[end]:
        if not _ROW.match(lines[end]) or len(_cells(lines[end])) != len(head):
            return -1
        end += 1
    if end == i + 2:
        return -1
    tokens.append(Token("table_open", "table", 1, map=[i, end], block=True))
    tokens.append(Token("thead_open", "thead", 1, map=[i, i + 1], level=1, block=True))
    _row(tokens, i, head, styles, "th")
    tokens.append(Token("thead_close", "thead", -1, level=1, block=True))
    tokens.append(Token("tbody_open", "tbody", 1, map=[i + 2, end], level=1, block=True))
    for row in range(i + 2, end):
        _row(tokens, row, _cells(lines[row]), styles, "td")
    tokens.append(Token("tbody_close", "tbody", -1, level=1, block=True))
    tokens.append(Token("table_close", "table", -1, block=True))
    return end


def _row(tokens: list[Token], row: int, cells: list[str], styles: list[str | None],
         tag: str) -> None:
    tokens.append(Token("tr_open", "tr", 1, map=[row, row + 1], level=2, block=True))
    for cell, style in zip(cells, styles, strict=True):
        opened = Token(f"{tag}_open", tag, 1, level=3, block=True)
        if style is not None:
            opened.attrs["style"] = f"text-align:{style}"
        tokens.append(opened)
        tokens.append(Token("inline", "", 0, map=[row, row + 1], level=4, content=cell,
                            children=[], block=True))
        tokens.append(Token(f"{tag}_close", tag, -1, level=3, block=True))
    tokens.append(Token("tr_close", "tr", -1, level=2, block=True))
