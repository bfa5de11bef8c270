"""edit_file's matching rules (tools/editplan.py): replace_all and pasted
read_file line numbers, each with the twin that must still fail."""

from __future__ import annotations

import pytest

from swebash_py.errors import ToolFailed
from swebash_py.tools.editplan import plan_edit, without_line_numbers
from swebash_py.tools.fetch import page

TEXT = "def f():\n    x = 1\n    return x\n"


def test_pasted_prefixes_are_removed_when_that_matches_once() -> None:
    plan = plan_edit(TEXT, "     2\t    x = 1\n     3\t    return x", "     2\t    x = 2\n"
                     "     3\t    return x", "f.py")
    assert plan.text == "def f():\n    x = 2\n    return x\n" and "line-number" in plan.note


def test_twin_text_that_matches_as_written_is_not_touched() -> None:
    text = "     1\tliteral tab table\n"
    plan = plan_edit(text, "     1\tliteral", "     1\tchanged", "t.txt")
    assert plan.text == "     1\tchanged tab table\n" and plan.note == ""


def test_twin_partly_numbered_text_is_not_a_paste() -> None:
    assert without_line_numbers("     2\tx = 1\nreturn x") is None
    with pytest.raises(ToolFailed, match="not found"):
        plan_edit(TEXT, "     2\t    x = 1\n    return y", "z", "f.py")


def test_replace_all_counts_and_twin_ambiguity_without_it() -> None:
    text = "a b a c a\n"
    assert plan_edit(text, "a", "z", "t", replace_all=True).text == "z b z c z\n"
    assert plan_edit(text, "a", "z", "t", replace_all=True).replaced == 3
    with pytest.raises(ToolFailed, match=r"matches 3 times.*replace_all"):
        plan_edit(text, "a", "z", "t")
    with pytest.raises(ToolFailed, match="not found"):
        plan_edit(text, "q", "z", "t", replace_all=True)


def test_a_numbered_paste_that_matches_twice_still_needs_replace_all() -> None:
    text = "x = 1\nx = 1\n"
    with pytest.raises(ToolFailed, match="matches 2 times"):
        plan_edit(text, "     1\tx = 1", "x = 2", "t")


def test_web_fetch_pages_with_offset() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(5000))
    first = page(text, 0, 2000)
    assert first.startswith(text[:2000]) and "offset=2000" in first
    second = page(text, 2000, 2000)
    assert second.splitlines()[1] == text[2000:4000] and "offset=4000" in second
    last = page(text, 4000, 2000)
    assert last.endswith(text[4000:]) and "cut" not in last
    assert "past the end" in page(text, 9000, 2000)
