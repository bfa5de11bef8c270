"""The stdlib plain renderer says what the terminal renderer says, uncoloured:
both take their words from ``render.words``; these compare the plain lines with
the rich lines' text over the shapes a result takes."""

from __future__ import annotations

import io

import pytest

from swebash_py.events import ApprovalEvent, BlockStop, Notice, PreviewEvent, TurnComplete
from swebash_py.render.lines import notice_line, preview_lines, stop_reason_line
from swebash_py.render.plain import PlainRenderer
from swebash_py.render.tools_view import ToolState, approval_line, result_view

MANY = "".join(f"line {n}\n" for n in range(40))
DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n"
CUT = "head\n[... 9,000 bytes (1,234 lines) cut from the middle ...]\ntail\n"

RESULTS = {
    "short": ("a\nb\n", False, None),
    "many lines": (MANY, False, None),
    "a diff": ("ok", False, DIFF),
    "failed command": ("boom\n[exit code 2 · 0.1 s]", False, None),
    "tool error": ("no such file: x.py", True, None),
    "empty": ("", False, None),
    "cut by the tool": (CUT, False, None),
}


def _plain_result(content: str, is_error: bool, display: str | None) -> str:
    err = io.StringIO()
    r = PlainRenderer(io.StringIO(), status=err)
    r.handle(BlockStop(index=0, kind="tool_use", call_id="c", tool="run_command",
                       input={"command": "ls -la"}))
    r.handle(BlockStop(index=1, kind="tool_result", call_id="c", tool="run_command",
                       content=content, is_error=is_error, display=display))
    return err.getvalue()


@pytest.mark.parametrize("case", sorted(RESULTS))
def test_a_result_reads_as_the_terminal_shows_it(case: str) -> None:
    content, is_error, display = RESULTS[case]
    state = ToolState("c", "run_command", 0.0, args="ls -la")
    rich_text = result_view(state, content, is_error=is_error, display=display, now=0.0).plain
    assert _plain_result(content, is_error, display) == f"» run_command  ls -la\n{rich_text}\n"


def test_the_twin_results_differ_when_the_content_does() -> None:
    """Not every content gives the same line (the comparison above is not vacuous)."""
    seen = {_plain_result(*RESULTS[case]) for case in RESULTS}
    assert len(seen) == len(RESULTS)


def test_status_lines_read_as_the_terminal_shows_them() -> None:
    err = io.StringIO()
    r = PlainRenderer(io.StringIO(), status=err)
    allowed = ApprovalEvent(call_id="c", tool="run_command", decision="allow", by="user",
                            reason="you said yes; remembered run_command(git status)")
    events = [allowed, Notice("retrying in 2 s"),
              PreviewEvent(call_id="c", tool="run_command", outcome="applied",
                           summary="M a.py\nA b.py"),
              TurnComplete(stop_reason="length")]
    for event in events:
        r.handle(event)
    expected = [approval_line(allowed), notice_line("retrying in 2 s"),
                preview_lines("applied", "M a.py\nA b.py", full=True),
                stop_reason_line("length")]
    assert err.getvalue() == "".join(f"{line.plain}\n" for line in expected if line)
    assert "remembered run_command(git status)" in err.getvalue()
