"""markdown-it's block tokens for the commonest answer shapes, made without its block parser.

markdown-it's block stage tries a chain of rules at every line, and a bullet list
recurses into a whole parser state per item (~0.1 ms per item). ``parse`` builds
the same block tokens directly (the tokens ``md.BLOCK_PARSER`` gives: ``inline``
tokens with empty children) for a document made only of shapes where CommonMark
leaves no choice:

- ATX headings: ``#`` to ``######``, one space, text not ending in ``#``;
- paragraphs of lines starting with an ASCII letter, a digit run not followed by
  ``.`` or ``)``, `` `x`` or ``**x`` (nothing that starts or interrupts a block);
- fences opened by exactly three backticks at column 0 and a one-word info string,
  closed by exactly three backticks (or running to the end), any lines between
  except another possible closing line;
- tight bullet lists of ``- `` items of one paragraph line each;
- empty lines between them; a paragraph or list ends at an empty line (or the end).

No line outside a fence may start or end with white space; no tab, NUL, CR,
vertical tab or form feed anywhere. Anything else (indentation, lazy continuation,
``*``/``+`` bullets, ordered lists, quotes, tables, HTML, setext underlines, loose
lists, references, ...) returns None and goes to markdown-it. A test compares the
tokens with markdown-it's over many generated and random documents.
"""

from __future__ import annotations

import re

from swebash_py.render.tokens import Tok as Token

_BAD_CHAR = re.compile(r"[\t\0\r\x0b\x0c]")
_HEADING = re.compile(r"(#{1,6}) (\S(?:.*[^\s#])?)\Z")
_PARA = re.compile(r"(?:[A-Za-z]|\d+(?![\d.)])|`[^`]|\*\*[A-Za-z0-9])")
_FENCE_OPEN = re.compile(r"```([A-Za-z0-9_+-]*)\Z")
_MAYBE_CLOSE = re.compile(r" {0,3}`{3,}[ \t]*\Z")


def parse(text: str) -> list[Token] | None:
    """``BLOCK_PARSER.parse(text)``'s tokens, or None when ``text`` is not in the
    shape described above."""
    if _BAD_CHAR.search(text):
        return None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
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
            i = _fence(lines, i, tokens, text.endswith("\n"))
        elif line.startswith("- "):
            i = _list(lines, i, tokens)
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


def _fence(lines: list[str], i: int, tokens: list[Token], newline_at_end: bool) -> int:
    """A fence from line ``i``; one running to an end without a newline lacks its last."""
    match = _FENCE_OPEN.match(lines[i])
    if match is None:
        return -1
    end, n = i + 1, len(lines)
    while end < n and lines[end] != "```":
        if _MAYBE_CLOSE.match(lines[end]):
            return -1
        end += 1
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
    """A tight list of one-line ``- `` items, ending at an empty line (or the end)."""
    end, n = i, len(lines)
    while end < n and lines[end]:
        line = lines[end]
        if not line.startswith("- ") or not _PARA.match(line, 2) or not _bare(line):
            return -1
        end += 1
    stop = end
    while stop < n and not lines[stop]:
        stop += 1
    if stop < n and lines[stop].startswith("- "):
        return -1  # an item after an empty line: a loose list
    opened = Token("bullet_list_open", "ul", 1, map=[i, stop], markup="-", block=True)
    tokens.append(opened)
    for row in range(i, end):
        last = stop if row == end - 1 else row + 1
        tokens.append(Token("list_item_open", "li", 1, map=[row, last], level=1, markup="-",
                            block=True))
        tokens.append(Token("paragraph_open", "p", 1, map=[row, row + 1], level=2,
                            block=True, hidden=True))
        tokens.append(Token("inline", "", 0, map=[row, row + 1], level=3,
                            content=lines[row][2:], children=[], block=True))
        tokens.append(Token("paragraph_close", "p", -1, level=2, block=True, hidden=True))
        tokens.append(Token("list_item_close", "li", -1, level=1, markup="-", block=True))
    tokens.append(Token("bullet_list_close", "ul", -1, markup="-", block=True))
    return stop
