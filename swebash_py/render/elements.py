"""What rich's Markdown loop knows of each element, without importing ``rich.markdown``.

The loop puts a blank line before an element it draws when the element that
closed last asks for one (``new_line``: all do but rules and images), and
draws an element as it closes unless its parent keeps it (``on_child_close``:
quotes, lists, list items and tables keep their children, to draw them with
themselves). Importing ``rich.markdown`` costs ~9 ms (``rich.table`` and
more), needed only when a block is drawn by rich's loop; these facts are
needed for every block. A test checks them against ``rich.markdown``'s classes.
"""

from __future__ import annotations

# Token types whose element has ``new_line = False``.
NO_NEW_LINE = frozenset({"hr", "image"})
# Token types whose element keeps its children (overrides ``on_child_close``).
KEEPS_CHILDREN = frozenset({"blockquote_open", "bullet_list_open", "ordered_list_open",
                            "list_item_open", "table_open", "tbody_open", "thead_open",
                            "tr_open"})
# Tags rich treats as inline styles (``Markdown.inlines``), not elements.
INLINES = frozenset({"s", "code", "strong", "em"})


def new_line_after(token_type: str) -> bool:
    """Whether the element a token of this type opens owes a blank line after it."""
    return token_type not in NO_NEW_LINE


def draws_children(token_type: str) -> bool:
    """Whether the element a token of this type opens lets its children be drawn as
    they close (rich's default ``on_child_close``)."""
    return token_type not in KEEPS_CHILDREN
