"""What an ``edit_file`` call changes: the matching rules, apart from the writing.

``old_text`` must match exactly once, or every occurrence is replaced when
``replace_all`` is asked. Two tolerances, each said in the result so the model
learns: CRLF files matched with LF text, and ``read_file``'s line-number
prefixes (``     12\\t``) pasted into ``old_text`` -- models copy them from the
``cat -n`` output often enough that refusing costs a round trip every time.
A prefix-stripped text is used only when it matches where the pasted one did not,
and then under the same rules (exactly once unless ``replace_all``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from swebash_py.errors import ToolFailed

# read_file's numbering: the line number right-aligned in six columns, then a tab
_NUMBERED = re.compile(r"^ *\d+\t", re.MULTILINE)


@dataclass(frozen=True)
class EditPlan:
    text: str  # the whole file after the edit
    replaced: int  # how many occurrences
    note: str = ""  # a tolerance that was applied, for the result


def find_all(text: str, needle: str) -> list[int]:
    """Start offsets of every (possibly overlapping) occurrence."""
    found, i = [], text.find(needle)
    while i != -1:
        found.append(i)
        i = text.find(needle, i + 1)
    return found


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def without_line_numbers(text: str) -> str | None:
    """``text`` with read_file's prefix removed from every line, or ``None`` when
    not every non-empty line carries one (then it was not pasted from read_file)."""
    lines = text.split("\n")
    if not all(_NUMBERED.match(line) for line in lines if line):
        return None
    return _NUMBERED.sub("", text)


def plan_edit(text: str, old: str, new: str, shown: str, replace_all: bool = False) -> EditPlan:
    """The edit of ``text``, or ``ToolFailed`` saying why it cannot be made."""
    if not old:
        raise ToolFailed("old_text is empty; use write_file to create or replace a whole file")
    if old == new:
        raise ToolFailed("old_text and new_text are identical; nothing to change")
    note = ""
    hits = find_all(text, old)
    if not hits and "\r\n" in text and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        hits = find_all(text, old)
    if not hits:
        old, new, note = _unnumbered(text, old, new)
        hits = find_all(text, old) if note else []
    if not hits:
        raise ToolFailed(_not_found(text, old, shown))
    if replace_all:
        count = text.count(old)
        return EditPlan(text.replace(old, new), count, note)
    if len(hits) > 1:
        lines = ", ".join(str(_line_of(text, i)) for i in hits[:20])
        raise ToolFailed(f"old_text matches {len(hits)} times in {shown} (at lines {lines}); "
                         "include more surrounding lines so it matches exactly once, or set "
                         "replace_all to change every occurrence.")
    return EditPlan(text[:hits[0]] + new + text[hits[0] + len(old):], 1, note)


def _unnumbered(text: str, old: str, new: str) -> tuple[str, str, str]:
    """``old`` and ``new`` without pasted line numbers, and the note saying so;
    unchanged with no note when ``old`` carries none or still matches nothing."""
    stripped = without_line_numbers(old)
    if stripped is None or stripped not in text:
        return old, new, ""
    new_stripped = without_line_numbers(new) if new else None
    return (stripped, new if new_stripped is None else new_stripped,
            "note: old_text carried read_file's line-number prefixes; they were removed "
            "and the text matched without them (do not copy the numbers next time)")


def _not_found(text: str, old: str, shown: str) -> str:
    hint = (" (it does match if whitespace is ignored: check indentation and spaces)"
            if " ".join(old.split()) in " ".join(text.split()) else "")
    return (f"old_text was not found in {shown}{hint}. Read the file again and "
            "copy the exact text.")
