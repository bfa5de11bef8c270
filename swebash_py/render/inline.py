"""The inline tokens of the commonest styled text, made without markdown-it's inline pass.

Most styled lines of an answer are words with ``**strong**`` and `` `code` `` in
them. markdown-it's inline pass costs ~40 us per such line (a state object,
a rule chain tried at every special character, delimiter balancing, post
processing). ``children`` builds the same tokens directly for text in a strict
shape where the CommonMark rules leave no choice: outside code spans no
character that starts any other inline syntax (or escapes, or breaks a line);
code spans of single backticks with content that is not stripped; ``**`` only
as an opener after a space (or the start) before an ASCII letter or digit, and a
closer after one before a space, the end or common punctuation, each opener
closed before the next. Anything else returns None and goes to markdown-it.
A test compares the tokens with markdown-it's over many random strings.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

# Characters that start inline syntax (or a line break) in text outside code spans.
_UNSAFE = re.compile(r"[\n\\`*_~&<\[!]")
_PIECE = re.compile(r"`[^`\n]+`|\*\*")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_AFTER_CLOSER = frozenset(" .,;:?)")


def children(content: str) -> list[Token] | None:
    """The children markdown-it's inline pass gives an inline token of ``content``,
    or None when ``content`` is not in the shape described above."""
    tokens: list[Token] = []
    level = 0  # inside a strong span
    pos = 0
    for match in _PIECE.finditer(content):
        start, end = match.span()
        if not _text(content[pos:start], level, tokens):
            return None
        after = content[end] if end < len(content) else ""
        if match.group() == "**":
            before = content[start - 1] if start else " "
            # Each ``**`` leaves an empty text token outside the strong span (its
            # other ``*``), merged into text next to it when there is some.
            if level == 0 and before == " " and after in _WORD:
                if not tokens or tokens[-1].type != "text":
                    tokens.append(Token("text", "", 0, content=""))
                tokens.append(Token("strong_open", "strong", 1, markup="**"))
                level = 1
            elif level == 1 and before in _WORD and (not after or after in _AFTER_CLOSER):
                tokens.append(Token("strong_close", "strong", -1, markup="**"))
                tokens.append(Token("text", "", 0, content=""))
                level = 0
            else:
                return None
        else:
            code = match.group()[1:-1]
            if after == "`" or code[0] == " " or code[-1] == " ":
                return None
            tokens.append(Token("code_inline", "code", 0, content=code, markup="`", level=level))
        pos = end
    if level or not _text(content[pos:], 0, tokens):
        return None
    return tokens


def _text(text: str, level: int, tokens: list[Token]) -> bool:
    """Add ``text`` to the text token before it, or as one (none when empty);
    False when it is not plain text."""
    if _UNSAFE.search(text):
        return False
    if tokens and tokens[-1].type == "text":
        tokens[-1].content += text
    elif text:
        tokens.append(Token("text", "", 0, content=text, level=level))
    return True
