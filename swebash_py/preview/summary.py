"""A preview's changes for people (the question) and for programs (``--json``).

Counts first (created / modified / deleted); then every deleted file by name
(the first ``DELETED_SHOWN``, then the path of a file with the full list),
whatever the number of other changes: a deletion hidden in a count is one
nobody agreed to. Then each created or modified path on a line (``+`` created,
``~`` modified, with kind, size, permission bits, symlink target), or, past
``PER_FILE_LIMIT`` of them, counts per directory; then new text files, head
and tail; then unified diffs of modified text files, each bounded, the whole
bounded too. Binary files are shown by size.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from typing import Any

from swebash_py.preview.changes import PAST, Change, ChangeSet
from swebash_py.text.excerpt import excerpt

PER_FILE_LIMIT = 20
DELETED_SHOWN = 50
DIRECTORY_LINES = 40
NEW_FILE_LINES = 20
NEW_FILES_TOTAL_LINES = 80
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


def per_directory(changes: list[Change]) -> list[str]:
    table: dict[str, Counter[str]] = {}
    for change in changes:
        parent = shown_name(os.path.dirname(change.rel) or ".")
        table.setdefault(parent, Counter())[PAST[change.action]] += 1
    lines = [f"  {directory}/: " + ", ".join(f"{n} {w}" for w, n in sorted(c.items()))
             for directory, c in sorted(table.items())]
    if len(lines) > DIRECTORY_LINES:
        lines = [*lines[:DIRECTORY_LINES],
                 f"  … {len(lines) - DIRECTORY_LINES} more directories with changes"]
    return lines


def deleted_lines(deleted: list[Change]) -> list[str]:
    """Every deleted path: the first ``DELETED_SHOWN`` here, all of them in a
    private file whose path is given (one name a line, spelled on one line)."""
    lines = [f"  {change_line(c)}" for c in deleted[:DELETED_SHOWN]]
    if len(deleted) > DELETED_SHOWN:
        where = _write_list([shown_name(c.rel) for c in deleted])
        more = f"  … {len(deleted) - DELETED_SHOWN} more deleted"
        lines.append(f"{more}; all {len(deleted)} are listed in: {where}" if where
                     else f"{more} (the full list could not be written)")
    return lines


def _write_list(names: list[str]) -> str | None:
    """``names`` one a line in a new owner-only temporary file; its path, or None."""
    import tempfile

    try:
        folder = tempfile.mkdtemp(prefix="swebash-deleted-")
        path = os.path.join(folder, "deleted.txt")
        with open(path, "x", encoding="utf-8") as out:
            out.write("".join(f"{name}\n" for name in names))
    except OSError:
        return None
    return path


def new_files(created: list[Change]) -> list[str]:
    """Each new text file's head and tail (never its head only), bounded in all."""
    out: list[str] = []
    for number, change in enumerate(created):
        if change.kind != "file" or change.link or not change.size or change.source is None:
            continue
        if len(out) >= NEW_FILES_TOTAL_LINES:
            left = sum(1 for c in created[number:] if c.kind == "file" and c.size)
            out.append(f"… {left} more new files: contents not shown")
            break
        text = _text(change.source, change.size)
        name = shown_name(change.rel)
        if text is None:
            out.append(f"{name}: new binary file, {change.size:,} bytes")
            continue
        lines = [shown_name(line.expandtabs()) for line in text.splitlines()]
        count = "1 line" if len(lines) == 1 else f"{len(lines)} lines"
        out.append(f"{name} (new file, {count}):")
        out += excerpt(lines, NEW_FILE_LINES, indent="  ")
    return out


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
    deleted = [c for c in changes.changes if c.action == "delete"]
    others = [c for c in changes.changes if c.action != "delete"]
    lines = [f"changes: {counts_line(changes)}", *deleted_lines(deleted)]
    if len(others) <= PER_FILE_LIMIT:
        lines += [f"  {change_line(c)}" for c in others]
        lines += new_files([c for c in others if c.action == "create"])
    else:
        lines += per_directory(others)
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
