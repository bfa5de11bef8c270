"""A Pygments lexer for ASCII-only code, without its Unicode identifier classes.

Pygments' Python lexer (and a few others) matches names with character classes
of every Unicode identifier character (``pygments.unistring.xid_start`` and
``xid_continue``, ~1,500 characters each). Compiling those regular expressions
is most of the ~18 ms the lexer costs on first use, once per process. On text
that is all ASCII a character class matches exactly the ASCII characters it
holds, so each such class can be replaced by its ASCII part (``A-Z_a-z`` ...)
without changing a single token. ``ascii_variant`` builds that lexer class (a
subclass with the narrowed rules, compiled on its first use as Pygments does);
callers use it only for text that ``str.isascii``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pygments import unistring
from pygments.lexer import Lexer, RegexLexer

_WIDE = (unistring.xid_start, unistring.xid_continue)
_SAFE_PREFIX = re.compile(r"[0-9A-Za-z_-]*")


def ascii_part(content: str) -> str | None:
    """The ASCII characters of the class ``[content]``, as class content, when the
    class is an ASCII prefix of plain characters and ranges followed by ranges and
    characters that are all outside ASCII; None when it is anything else."""
    cut = next((i for i, char in enumerate(content) if not char.isascii()), len(content))
    prefix, rest = content[:cut], content[cut:]
    if not prefix or prefix.startswith("-") or not _SAFE_PREFIX.fullmatch(prefix):
        return None
    if prefix.endswith("-"):
        return None  # a range from ASCII into the rest
    for i, char in enumerate(rest):
        # Outside the prefix only "-" may be ASCII, between two non-ASCII characters.
        if char.isascii() and (char != "-" or i == 0 or i == len(rest) - 1
                               or rest[i - 1].isascii() or rest[i + 1].isascii()):
            return None
    return prefix


@lru_cache(maxsize=1)
def _narrowing() -> dict[str, str]:
    """``[wide class]`` -> ``[its ASCII part]`` for the classes this module narrows."""
    subs = {}
    for wide in _WIDE:
        part = ascii_part(wide)
        if part is not None:
            subs[f"[{wide}]"] = f"[{part}]"
    return subs


def _narrow(regex: str) -> str:
    for wide, narrow in _narrowing().items():
        regex = regex.replace(wide, narrow)
    return regex


_CASELESS = re.compile(r"\(\?[aiLmsux-]*i")  # an inline IGNORECASE flag


@lru_cache(maxsize=32)
def ascii_variant(cls: type[Lexer]) -> type[Lexer]:
    """``cls`` with its wide identifier classes narrowed to ASCII (``cls`` itself
    when it has none, or when case-insensitive matching could reach past ASCII)."""
    if not issubclass(cls, RegexLexer) or cls.flags & re.IGNORECASE:
        return cls
    tokens: dict[str, list[object]] = {}
    changed = False
    for state, rules in cls.get_tokendefs().items():
        narrowed: list[object] = []
        for rule in rules:
            if type(rule) is tuple and isinstance(rule[0], str):
                regex = _narrow(rule[0])
                if regex != rule[0]:
                    if _CASELESS.search(rule[0]):
                        return cls
                    rule = (regex, *rule[1:])
                    changed = True
            narrowed.append(rule)
        tokens[state] = narrowed
    if not changed:
        return cls
    # Every state is given, so none is inherited from ``cls``'s own definitions.
    meta: type = type(cls)
    variant: type[Lexer] = meta(f"Ascii{cls.__name__}", (cls,),
                                {"tokens": tokens, "__module__": __name__})
    return variant
