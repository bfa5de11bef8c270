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
closed before the next (or left open at the end: then it is text); a ``*``,
``**`` or `````` after a space at the very end is text too. Anything
else returns None and goes to markdown-it.
A test compares the tokens with markdown-it's over many random strings.
"""

from __future__ import annotations

import re

from swebash_py.render.tokens import Tok as Token

# Characters that start inline syntax (or a line break) in text outside code spans.
_UNSAFE = re.compile(r"[\n\\`*_~&<\[!]")
_PIECE = re.compile(r"`[^`\n]+`|\*\*")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_AFTER_CLOSER = frozenset(" .,;:?)")
_DANGLING = re.compile(r" (?:\*\*?|`)\Z")


def children(content: str, literal: int = -1) -> list[Token] | None:
    """The children markdown-it's inline pass gives an inline token of ``content``,
    or None when ``content`` is not in the shape described above. The ``**`` at
    ``literal`` is text: what an opener left unclosed at the end is (as a line of
    a streamed answer often is while it arrives)."""
    dangling = _DANGLING.search(content)
    if dangling is not None and literal < 0:
        # A marker after a space at the very end opens and closes nothing: text.
        made = children(content[:dangling.start() + 1])
        if made is not None:
            _join(dangling.group()[1:], made)
        return made
    tokens: list[Token] = []
    level = 0  # inside a strong span
    pos = 0
    opened = -1  # where the open strong span began
    for match in _PIECE.finditer(content):
        start, end = match.span()
        if not _text(content[pos:start], level, tokens):
            return None
        after = content[end] if end < len(content) else ""
        if start == literal:
            _join("**", tokens)
        elif match.group() == "**":
            before = content[start - 1] if start else " "
            # Each ``**`` leaves an empty text token outside the strong span (its
            # other ``*``), merged into text next to it when there is some.
            if level == 0 and before == " " and after in _WORD:
                if not tokens or tokens[-1].type != "text":
                    tokens.append(Token("text", "", 0, content=""))
                tokens.append(Token("strong_open", "strong", 1, markup="**"))
                level, opened = 1, start
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
    if level:
        return children(content, opened) if literal < 0 else None
    if not _text(content[pos:], 0, tokens):
        return None
    return tokens


def _join(text: str, tokens: list[Token]) -> None:
    """Add ``text`` (outside a strong span) to the text token before it, or as one."""
    if tokens and tokens[-1].type == "text":
        tokens[-1].content += text
    else:
        tokens.append(Token("text", "", 0, content=text))


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
