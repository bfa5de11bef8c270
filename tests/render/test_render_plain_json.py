"""neutralize(), plain output, the JSON lines printer and make_renderer's choice."""

from __future__ import annotations

import io
import json
import sys

import pytest
from rich.console import Console

from swebash_py.events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorEvent,
    ToolProgress,
    TurnComplete,
    TurnStart,
)
from swebash_py.render import JsonRenderer, PlainRenderer, Renderer, make_renderer, neutralize
from tests.render.helpers import chunked, text_events
from tests.render.test_render_markdown import MIXED


def test_neutralize_removes_screen_control() -> None:
    nasty = (
        "a\x1b[2J\x1b[H"  # clear screen, home
        "\x1b]0;evil title\x07"  # OSC title
        "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"  # hyperlink
        "\x9b2Jc1 \x00nul\x07bel\x7f "
        "\x1b7save\x1b8 \u202eevil\u202c\n"
        "progress 10%\rprogress 100%\r\nAllow? [y/N] y\n\tend"
    )
    out = neutralize(nasty)
    assert out == (
        "alinkc1 nulbel save evil\n"
        "progress 10%\nprogress 100%\nAllow? [y/N] y\n\tend"
    )
    assert not any(ord(c) < 32 and c not in "\n\t" for c in out)


def test_neutralize_unterminated_osc_is_dropped() -> None:
    assert neutralize("before \x1b]0;title never ends") == "before "


def test_plain_output_is_the_raw_text() -> None:
    out = io.StringIO()
    r = PlainRenderer(out)
    for event in text_events(chunked(MIXED, 4)):
        r.handle(event)
    assert out.getvalue() == MIXED


def test_plain_adds_a_final_newline_and_short_tool_lines() -> None:
    out = io.StringIO()
    r = PlainRenderer(out)
    r.handle(BlockDelta(index=0, kind="thinking", text="hidden thoughts"))
    r.handle(BlockDelta(index=1, kind="text", text="Looking."))
    r.handle(BlockStop(index=2, kind="tool_use", call_id="c", tool="run_command",
                       input={"command": "ls"}))
    r.handle(ToolProgress(call_id="c", tool="run_command", status="output", output="a\n"))
    r.handle(BlockStop(index=3, kind="tool_result", call_id="c", tool="run_command",
                       content="a\x1b[2J\nb\n"))
    r.handle(ErrorEvent(message="boom"))
    r.handle(TurnComplete(stop_reason="stop"))
    assert out.getvalue() == (
        "Looking.\n» run_command  ls\n✓ run_command  ls\n  a\n  b\nError: boom\n"
    )


def test_json_lines_parse_back_with_types() -> None:
    out = io.StringIO()
    r = JsonRenderer(out)
    events = [TurnStart(model="m"), BlockStart(index=0, kind="text"),
              BlockDelta(index=0, kind="text", text="hi\n"), TurnComplete(stop_reason="stop")]
    for event in events:
        r.handle(event)
    r.close()
    parsed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [p["type"] for p in parsed] == ["turn_start", "block_start", "block_delta",
                                          "turn_complete"]
    assert parsed[2]["text"] == "hi\n"


def test_make_renderer_picks_plain_for_files_and_dumb_terminals() -> None:
    assert isinstance(make_renderer(Console(file=io.StringIO())), PlainRenderer)
    tty = Console(file=io.StringIO(), force_terminal=True)
    assert isinstance(make_renderer(tty, tick=None), Renderer)
    assert isinstance(make_renderer(tty, plain=True), PlainRenderer)
    dumb = Console(file=io.StringIO(), force_terminal=True, _environ={"TERM": "dumb"})
    assert isinstance(make_renderer(dumb), PlainRenderer)


def test_no_color_on_a_terminal_keeps_the_rendered_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """no-color.org asks only that colour go: Markdown is still rendered."""
    monkeypatch.setenv("NO_COLOR", "1")
    console = Console(file=io.StringIO(), force_terminal=True, width=80)
    assert console.no_color
    assert isinstance(make_renderer(console, tick=None), Renderer)


def test_status_to_stderr_is_made_only_for_plain_output() -> None:
    """The one-shot's status console on stderr exists only when plain output is chosen."""
    plain = make_renderer(Console(file=io.StringIO()), status_to_stderr=True)
    assert isinstance(plain, PlainRenderer)
    assert plain.status is not plain.out and plain.status is sys.stderr
    tty = Console(file=io.StringIO(), force_terminal=True)
    assert isinstance(make_renderer(tty, status_to_stderr=True, tick=None), Renderer)
    alone = make_renderer(Console(file=io.StringIO()))  # the twin
    assert isinstance(alone, PlainRenderer) and alone.status is alone.out
