"""A tool result the model got shortened: the hidden count is the true one and
the user is told the model saw a cut version (#14: `seq 1 100000` said 5643)."""

from __future__ import annotations

from swebash_py.events import TurnComplete
from swebash_py.process.proc import Capture
from swebash_py.text.truncate import cap_middle, split_cut
from tests.render.helpers import FakeClock, make_console, output, renderer
from tests.render.render_screen import screen_of
from tests.render.test_render_tools import finish_tool, start_tool

SEQ = "".join(f"{n}\n" for n in range(1, 100_001))


def shown(content: str) -> list[str]:
    console = make_console()
    r = renderer(console, clock=FakeClock(0.0))
    start_tool(r, "c1", "run_command", {"command": "seq 1 100000"})
    finish_tool(r, "c1", "run_command", content)
    r.handle(TurnComplete(stop_reason="stop"))
    return [line.strip() for line in screen_of(output(console))]


def hidden_count(screen: list[str]) -> int:
    line = next(line for line in screen if "lines hidden" in line)
    return int(line.split()[1])


def test_the_hidden_count_covers_what_the_model_never_saw() -> None:
    capture = Capture(8_000, 8_000)
    capture.add(SEQ.encode())
    content = capture.text()
    screen = shown(content)
    numbers = [line for line in screen if line.isdigit()]
    assert numbers[:4] == ["1", "2", "3", "4"] and numbers[-4:] == [
        "99997", "99998", "99999", "100000"]
    assert hidden_count(screen) == 100_000 - 8  # every line is either shown or counted
    _, cut = split_cut(content)
    assert screen[-1] == (f"(the model saw a shortened version: {cut:,} lines cut from the "
                          "middle)")


def test_cut_by_the_character_cap_too() -> None:
    content = cap_middle(SEQ, 30_000)
    screen = shown(content)
    assert hidden_count(screen) == 100_000 - 8
    assert "the model saw a shortened version" in screen[-1]


def test_whole_output_says_nothing_of_the_kind() -> None:
    """The twin: a result that was not cut counts only what the screen hides."""
    screen = shown("".join(f"{n}\n" for n in range(1, 31)))
    assert hidden_count(screen) == 22
    assert not any("shortened" in line for line in screen)
