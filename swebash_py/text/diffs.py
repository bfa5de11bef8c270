"""A unified diff of two texts, as the edit tools show it and undo previews it."""

from __future__ import annotations

import difflib


def unified_diff(old: str | None, new: str, shown: str) -> str:
    """A unified diff from ``old`` (None: a new file) to ``new``."""
    def lines(text: str) -> list[str]:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace").splitlines(True)

    diff = difflib.unified_diff(lines(old or ""), lines(new),
                                "/dev/null" if old is None else f"a/{shown}", f"b/{shown}")
    out = []
    for line in diff:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
