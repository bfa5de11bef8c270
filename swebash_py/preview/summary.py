"""A preview's changes for people (the question) and for programs (``--json``).

Counts first (created / modified / deleted); then each change on a line
(``+`` created, ``~`` modified, ``-`` deleted, with kind, size, permission
bits, symlink target), or, past ``PER_FILE_LIMIT`` changes, counts per
directory; then unified diffs of modified text files, each bounded, the whole
bounded too. Binary files are shown by size.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from typing import Any

from swebash_py.preview.changes import PAST, Change, ChangeSet

PER_FILE_LIMIT = 20
DIFF_FILE_LINES = 40
DIFF_TOTAL_LINES = 160
TEXT_MAX_BYTES = 1 << 20
_SIGN = {"create": "+", "modify": "~", "delete": "-"}


def counts_line(changes: ChangeSet) -> str:
    counts = changes.counts()
    return ", ".join(f"{n} {word}" for word, n in counts.items() if n) or "no changes"


def shown_name(rel: str) -> str:
    """A name on one line: control characters (a newline in a name) spelled out."""
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in rel)


def change_line(change: Change) -> str:
    shown = shown_name(change.rel) + ("/" if change.kind == "dir" else "")
    bits = []
    if change.kind == "symlink":
        bits.append(f"-> {shown_name(change.target or '')}")
    elif change.kind == "file" and change.link:
        bits.append(f"hard link to {shown_name(change.link)}")
    elif change.kind == "file" and change.content:
        bits.append(f"{change.size:,} bytes")
    if change.kind is not None and change.kind != "symlink":
        before = change.base.mode & 0o7777 if change.base.kind else None
        if before is None or before != change.mode:
            bits.append(f"mode {change.mode:o}" if before is None
                        else f"mode {before:o} -> {change.mode:o}")
    if change.kind == "fifo":
        bits.append("fifo")
    if change.replace and change.base.kind is not None:
        bits.append(f"replaces a {change.base.kind}")
    return f"{_SIGN[change.action]} {shown}" + (f"  ({', '.join(bits)})" if bits else "")


def per_directory(changes: ChangeSet) -> list[str]:
    table: dict[str, Counter[str]] = {}
    for change in changes.changes:
        parent = shown_name(os.path.dirname(change.rel) or ".")
        table.setdefault(parent, Counter())[PAST[change.action]] += 1
    return [f"  {directory}/: " + ", ".join(f"{n} {w}" for w, n in sorted(c.items()))
            for directory, c in sorted(table.items())]


def _text(path: str, size: int) -> str | None:
    if size > TEXT_MAX_BYTES:
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read(TEXT_MAX_BYTES + 1)
        if b"\0" in data[:8192]:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def diffs(changes: ChangeSet) -> list[str]:
    """Bounded unified diffs of modified text files."""
    out: list[str] = []
    for change in changes.changes:
        if change.action != "modify" or change.kind != "file" or not change.content or \
                change.source is None:
            continue
        if len(out) >= DIFF_TOTAL_LINES:
            out.append("… more diffs not shown")
            break
        old = _text(str(change.path), change.base.size)
        new = _text(change.source, change.size)
        if old is None or new is None:
            out.append(f"{shown_name(change.rel)}: binary, {change.base.size:,} -> "
                       f"{change.size:,} bytes")
            continue
        lines = list(difflib.unified_diff(old.splitlines(keepends=True),
                                          new.splitlines(keepends=True),
                                          f"a/{shown_name(change.rel)}",
                                          f"b/{shown_name(change.rel)}"))
        lines = [ln.rstrip("\n") for ln in lines]
        if len(lines) > DIFF_FILE_LINES:
            lines = [*lines[:DIFF_FILE_LINES], f"… {len(lines) - DIFF_FILE_LINES} more lines"]
        out += lines
    return out


def summary_text(changes: ChangeSet) -> str:
    """The changes as the question and plain output show them."""
    lines = [f"changes: {counts_line(changes)}"]
    if len(changes) <= PER_FILE_LIMIT:
        lines += [f"  {change_line(c)}" for c in changes.changes]
    else:
        lines += per_directory(changes)
    lines += diffs(changes)
    return "\n".join(lines)


def as_json(changes: ChangeSet) -> list[dict[str, Any]]:
    """One object per change (the ``--json`` event's list)."""
    out = []
    for c in changes.changes:
        item: dict[str, Any] = {"path": str(c.path), "action": c.action, "kind": c.kind}
        if c.kind is not None and c.kind != "symlink":
            item["mode"] = f"{c.mode:o}"
        if c.kind == "file":
            item["size"] = c.size
        if c.target is not None:
            item["target"] = c.target
        if c.link is not None:
            item["link"] = c.link
        out.append(item)
    return out
