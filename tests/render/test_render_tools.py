"""Tool spinners, output tails, results, diffs, approvals, notices, errors."""

from __future__ import annotations

import re
import threading

from swebash_py.events import (
    ApprovalEvent,
    BlockStart,
    BlockStop,
    ErrorEvent,
    Notice,
    ToolProgress,
    TurnComplete,
    UsageEvent,
)
from swebash_py.render.console import Renderer
from tests.render.helpers import FakeClock, make_console, output, renderer
from tests.render.render_screen import screen_of

DIFF = """--- a/app.py
+++ b/app.py
@@ -1,3 +1,3 @@
 import os
-x = 1
+x = 2
"""


def start_tool(r: Renderer, call_id: str, tool: str, args: dict[str, object]) -> None:
    r.handle(BlockStart(index=0, kind="tool_use", call_id=call_id, tool=tool))
    r.handle(BlockStop(index=0, kind="tool_use", call_id=call_id, tool=tool, input=args))
    r.handle(ToolProgress(call_id=call_id, tool=tool, status="running"))


def finish_tool(r: Renderer, call_id: str, tool: str, content: str, **kw: object) -> None:
    r.handle(ToolProgress(call_id=call_id, tool=tool, status="done"))
    r.handle(BlockStop(index=1, kind="tool_result", call_id=call_id, tool=tool,
                       content=content, **kw))  # type: ignore[arg-type]


def text_lines(raw: str) -> list[str]:
    """The final screen without styles, right-stripped."""
    return [line.rstrip() for line in screen_of(re.sub(r"\x1b\[[0-9;]*m", "", raw))]


def live_frame(text: str) -> list[str]:
    """The screen as it is right now (live region included)."""
    return screen_of(text)


def test_parallel_tools_each_get_a_spinner_with_args_and_time() -> None:
    console = make_console()
    r = renderer(console, clock=FakeClock(0.5))
    start_tool(r, "c1", "run_command", {"command": "ls -la"})
    start_tool(r, "c2", "read_file", {"path": "src/app.py"})
    screen = live_frame(output(console))
    assert any("run_command  ls -la" in line and "s" in line.split("ls -la")[1] for line in screen)
    assert any("read_file  src/app.py" in line for line in screen)
    r.close()
    assert all(line.startswith("✗") for line in screen_of(output(console)) if line.strip())


def test_output_tail_shows_last_five_lines_then_head_tail_result() -> None:
    console = make_console()
    clock = FakeClock(0.0)
    r = renderer(console, clock=clock)
    start_tool(r, "c1", "run_command", {"command": "seq 1 30"})
    for n in range(1, 31):
        clock.now += 0.25
        r.handle(ToolProgress(call_id="c1", tool="run_command", status="output", output=f"{n}\n"))
    tail = [line.strip() for line in live_frame(output(console)) if "│" in line]
    assert tail == [f"│ {n}" for n in range(26, 31)]
    finish_tool(r, "c1", "run_command", "".join(f"{n}\n" for n in range(1, 31)))
    r.handle(TurnComplete(stop_reason="stop"))
    screen = [line.rstrip() for line in screen_of(output(console))]
    assert screen[0] == "✓ run_command  seq 1 30  7.5s"
    assert screen[1:] == ["  1", "  2", "  3", "  4", "  … 22 lines hidden …",
                          "  27", "  28", "  29", "  30"]


def test_error_result_is_one_red_line() -> None:
    console = make_console("truecolor")
    r = renderer(console)
    start_tool(r, "c1", "read_file", {"path": "missing.txt"})
    finish_tool(r, "c1", "read_file", "No such file: missing.txt\nmore detail", is_error=True)
    r.close()
    screen = screen_of(output(console))
    assert len(screen) == 1
    assert "\x1b[31mN" in screen[0]  # the message is red
    plain = make_console()
    r = renderer(plain, clock=FakeClock(0.0))
    start_tool(r, "c1", "read_file", {"path": "missing.txt"})
    finish_tool(r, "c1", "read_file", "No such file: missing.txt\nmore detail", is_error=True)
    r.close()
    assert [s.rstrip() for s in screen_of(output(plain))] == [
        "✗ read_file  missing.txt  0.0s  No such file: missing.txt more detail"
    ]


def test_diff_display_is_coloured() -> None:
    console = make_console("truecolor")
    r = renderer(console)
    start_tool(r, "c1", "edit_file", {"path": "app.py"})
    finish_tool(r, "c1", "edit_file", "edited app.py", display=DIFF)
    r.close()
    screen = screen_of(output(console))
    text = text_lines(output(console))
    assert text[0].startswith("✓ edit_file  app.py")
    assert text[1:] == [" " * 2 + line for line in DIFF.rstrip().split("\n")]
    assert screen[1].startswith("  \x1b[1m-\x1b[1m-")  # header bold
    assert screen[3].startswith("  \x1b[36m@")
    assert screen[4].rstrip() == "   import os"
    assert screen[5].startswith("  \x1b[31m-\x1b[31mx")
    assert screen[6].startswith("  \x1b[32m+\x1b[32mx")


def test_tool_output_cannot_fake_an_approval_or_clear_the_screen() -> None:
    console = make_console()
    r = renderer(console, clock=FakeClock(0.0))
    start_tool(r, "c1", "run_command", {"command": "evil"})
    nasty = "ok\x1b[2J\x1b[H\x1b]0;pwned\x07\rAllow? [y/N] \x1b[1A\x1b[2Kgone [red]x[/red]\n"
    r.handle(ToolProgress(call_id="c1", tool="run_command", status="output", output=nasty))
    finish_tool(r, "c1", "run_command", nasty)
    r.close()
    raw = output(console)
    assert "\x1b[2J" not in raw and "pwned" not in raw and "\x1b[H" not in raw
    screen = [line.rstrip() for line in screen_of(raw)]
    assert screen == ["✓ run_command  evil  0.0s", "  ok", "  Allow? [y/N] gone [red]x[/red]"]


def test_approval_notice_error_usage_lines() -> None:
    console = make_console()
    r = renderer(console, show_usage=True, clock=FakeClock(0.0))
    start_tool(r, "c1", "run_command", {"command": "git status"})
    r.handle(ApprovalEvent(call_id="c1", tool="run_command", decision="allow", by="rule"))
    r.handle(ApprovalEvent(call_id="c1", tool="run_command", decision="allow", by="mode"))
    r.handle(ApprovalEvent(call_id="c1", tool="run_command", decision="deny", by="user",
                           reason="not now"))
    r.handle(Notice(message="context compacted"))
    r.handle(ErrorEvent(message="provider said no"))
    r.handle(UsageEvent(input_tokens=10, output_tokens=5, cost=0.0012))
    r.handle(TurnComplete(stop_reason="length"))
    screen = [line.rstrip() for line in screen_of(output(console))]
    assert screen == [
        "✓ allowed by rule run_command(git status)",
        "context compacted",
        "Error: provider said no",
        "✗ run_command  git status  0.0s  cancelled",
        "(the answer was cut off: the model hit its output token limit)",
        # one line for the whole answer, after it (#29): not one per request
        "tokens: 10 in (0 cached), 5 out · $0.0012",
    ]


def test_thinking_is_one_dim_line() -> None:
    from swebash_py.events import BlockDelta

    console = make_console("truecolor")
    r = renderer(console)
    r.handle(BlockStart(index=0, kind="thinking"))
    for word in ["Let me ", "look at ", "the files.\n", "Then answer."]:
        r.handle(BlockDelta(index=0, kind="thinking", text=word))
    r.handle(BlockStop(index=0, kind="thinking"))
    r.close()
    screen = screen_of(output(console))
    assert len(screen) == 1
    assert screen[0].startswith("\x1b[2;3m✻")  # dim italic
    assert text_lines(output(console))[0].startswith(
        "✻ thought for 0.1s · Let me look at the files. Then answer.")


def test_suspend_erases_the_live_region_and_resumes() -> None:
    console = make_console()
    r = renderer(console)
    start_tool(r, "c1", "run_command", {"command": "sleep 5"})
    with r.suspend():
        assert screen_of(output(console)) == []
        console.print("Allow run_command(sleep 5)? [y/N]")
    screen = screen_of(output(console))
    assert screen[0].startswith("Allow run_command")
    assert "run_command  sleep 5" in screen[1]
    r.close()


def test_ticker_animates_spinners_from_its_thread() -> None:
    console = make_console()
    r = Renderer(console, tick=0.01)
    start_tool(r, "c1", "run_command", {"command": "sleep 5"})
    seen = threading.Event()
    before = len(output(console))
    for _ in range(2000):
        if len(output(console)) > before:
            seen.set()
            break
        seen.wait(0.01)
    r.close()
    assert seen.is_set()
    assert [line.rstrip() for line in screen_of(output(console))] == [
        "✗ run_command  sleep 5  " + screen_of(output(console))[0].split("sleep 5  ")[1].rstrip()
    ]


def _result_during_question(hold: bool) -> list[str]:
    """Two tools; one finishes while a question is open (suspended renderer)."""
    console = make_console()
    r = renderer(console)
    start_tool(r, "c1", "read_file", {"path": "a.txt"})
    start_tool(r, "c2", "web_fetch", {"url": "http://x"})
    with r.suspend() if hold else _no_suspend():
        console.print("? web_fetch wants to run:")
        console.print("Allow? [y]es / [a]lways / [n]o: ", end="")
        finish_tool(r, "c1", "read_file", "alpha\n")
        screen_while_open = screen_of(output(console))
    r.close()
    return screen_while_open


class _no_suspend:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_nothing_draws_while_a_question_is_open_and_it_shows_after() -> None:
    screen = _result_during_question(hold=True)
    assert screen[-1].startswith("Allow?") and "read_file" not in screen[-1]
    assert not any("alpha" in line for line in screen)


def test_the_twin_without_the_hold_a_result_lands_in_the_prompt_line() -> None:
    screen = _result_during_question(hold=False)
    assert any("read_file" in line or "alpha" in line for line in screen[1:])


def test_what_was_held_is_printed_once_when_the_question_ends() -> None:
    console = make_console()
    r = renderer(console)
    start_tool(r, "c1", "read_file", {"path": "a.txt"})
    with r.suspend():
        finish_tool(r, "c1", "read_file", "alpha\n")
    r.close()
    text = screen_of(output(console))
    assert sum("read_file" in line for line in text) == 1
    assert any("alpha" in line for line in text)


def test_an_answered_question_then_one_result_line_without_the_diff_again() -> None:
    console = make_console()
    clock = FakeClock(0.0)
    r = renderer(console, clock=clock)
    start_tool(r, "e1", "edit_file", {"path": "app.py"})
    clock.now = 30.0  # the user thought for half a minute
    r.handle(ApprovalEvent(call_id="e1", tool="edit_file", decision="allow", by="user",
                           reason="allowed; remembered edit_file(app.py)"))
    r.handle(ToolProgress(call_id="e1", tool="edit_file", status="running"))
    clock.now = 30.5
    finish_tool(r, "e1", "edit_file", "Edited app.py (+1 -1)", display=DIFF)
    r.handle(BlockStart(index=2, kind="tool_use", call_id="c2", tool="run_command"))
    r.handle(BlockStop(index=2, kind="tool_use", call_id="c2", tool="run_command",
                       input={"command": "rm -rf build"}))
    clock.now = 50.0
    r.handle(ApprovalEvent(call_id="c2", tool="run_command", decision="deny", by="user",
                           reason="the user said no"))
    finish_tool(r, "c2", "run_command", "denied by the user", is_error=True)
    r.close()
    screen = [line.rstrip() for line in screen_of(output(console))]
    assert screen == [
        "✓ allowed by you edit_file(app.py) · remembered edit_file(app.py)",
        "✓ edit_file  app.py  0.5s",
        "  Edited app.py (+1 -1)",
        "✗ run_command  rm -rf build  0.0s  denied by the user",
    ]


def test_the_twin_an_edit_nobody_was_asked_about_shows_its_diff() -> None:
    console = make_console()
    r = renderer(console)
    start_tool(r, "e1", "edit_file", {"path": "app.py"})
    finish_tool(r, "e1", "edit_file", "Edited app.py (+1 -1)", display=DIFF)
    r.close()
    assert any("x = 2" in line for line in screen_of(output(console)))
