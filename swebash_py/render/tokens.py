"""markdown-it's ``Token``, without importing markdown-it (~13 ms) until it is needed.

``fastblock`` and ``inline`` make the tokens of the commonest answers themselves;
``direct`` draws them from their fields alone. ``Tok`` has exactly ``Token``'s
fields (for the type checker it *is* ``Token``), so those answers never load
markdown-it; ``real`` turns a token list into markdown-it's own tokens, field
for field, where markdown-it or rich's ``Markdown`` takes them over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["Tok", "ours", "real"]

if TYPE_CHECKING:
    from markdown_it.token import Token as Tok
else:
    class Tok:
        """A ``markdown_it.token.Token`` stand-in: the same fields, the same defaults."""

        __slots__ = ("attrs", "block", "children", "content", "hidden", "info", "level",
                     "map", "markup", "meta", "nesting", "tag", "type")

        def __init__(self, type: str, tag: str, nesting: int, map: list[int] | None = None,
                     level: int = 0, children: list[Any] | None = None, content: str = "",
                     markup: str = "", info: str = "", block: bool = False,
                     hidden: bool = False) -> None:
            self.type, self.tag, self.nesting, self.map = type, tag, nesting, map
            self.level, self.children, self.content = level, children, content
            self.markup, self.info, self.block, self.hidden = markup, info, block, hidden
            self.attrs: dict[str, Any] = {}
            self.meta: dict[Any, Any] = {}

        def as_dict(self, **options: Any) -> dict[str, Any]:
            return real([self])[0].as_dict(**options)

        def __repr__(self) -> str:
            return f"Tok({self.type!r}, {self.tag!r}, {self.nesting}, content={self.content!r})"

_FIELDS = ("type", "tag", "nesting", "attrs", "map", "level", "children", "content", "markup",
           "info", "meta", "block", "hidden")


def real(tokens: list[Tok]) -> list[Tok]:
    """``tokens`` as markdown-it's own ``Token`` objects, children too (markdown-it's
    tokens are kept, their children made its own in place)."""
    from markdown_it.token import Token

    return [_real(token, Token) for token in tokens]


def _real(token: Any, cls: Any) -> Any:
    children = token.children
    if children is not None:
        children = [_real(child, cls) for child in children]
    if type(token) is cls:
        token.children = children
        return token
    fields = {name: getattr(token, name) for name in _FIELDS}
    fields["children"] = children
    return cls(**fields)


def ours(tokens: list[Tok]) -> bool:
    """Whether ``tokens`` are ``Tok`` stand-ins (none is markdown-it's own)."""
    return all(type(token) is Tok for token in tokens)
