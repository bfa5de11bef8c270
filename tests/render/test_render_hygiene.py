"""Terminal hygiene in every renderer, with the real rich renderer and plain output.

Each renderer gets untrusted text laced with escape sequences (screen clear,
window title, OSC 52 clipboard write, DCS, 8-bit CSI), cut into small chunks so
sequences straddle chunk boundaries. ``screen_of`` raises on any escape other
than the few rich itself uses, so a sequence that got through fails the test.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from swebash_py.events import (
    ApprovalEvent,
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorEvent,
    Notice,
    ToolProgress,
    TurnComplete,
)
from swebash_py.render import PlainRenderer
from swebash_py.text.sanitize import StreamNeutralizer, neutralize
from tests.render.helpers import (
    RichMarkdown,
    chunked,
    make_console,
    output,
    renderer,
    streamed_render,
    whole_render,
)
from tests.render.render_screen import screen_of

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52: write "rm -rf ~" to the clipboard
NASTY = (
    "# Title\x1b]0;pwned\x07\n\n"
    f"Some **bold**{CLIPBOARD} text\x1b[2J\x1b[H here.\r\n\r\n"
    "- item \x1bP+q544e\x1b\\one\n- item \x9b31mtwo\n\n"
    "```sh\nls\x1b[1A\x1b[2K -la\n```\n"
)
CLEAN = "# Title\n\nSome **bold** text here.\n\n- item one\n- item two\n\n```sh\nls -la\n```\n"


def test_neutralize_removes_clipboard_writes_and_device_strings() -> None:
    assert neutralize(f"a{CLIPBOARD}b\x1b]52;c;eA==\x1b\\c") == "abc"
    assert neutralize("a\x1bP1$r0m\x1b\\b\x90q\x9cc") == "abc"
    assert neutralize("a\x1b(Bb") == "ab"  # a three-byte ESC sequence goes whole


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_stream_neutralizer_removes_sequences_split_across_chunks(size: int) -> None:
    clean = StreamNeutralizer()
    out = "".join(clean.feed(c) for c in chunked(NASTY, size)) + clean.finish()
    assert out == neutralize(NASTY) == CLEAN


def test_stream_neutralizer_keeps_a_split_crlf_one_line_break() -> None:
    clean = StreamNeutralizer()
    assert clean.feed("one\r") == "one"
    assert clean.feed("\ntwo") == "\ntwo"
    assert clean.finish() == ""


def test_an_endless_sequence_is_released_not_hoarded() -> None:
    clean = StreamNeutralizer()
    parts = [clean.feed("x\x1b]52;c;")] + [clean.feed("A" * 1000) for _ in range(6)]
    assert "".join(parts).startswith("x") and "A" in "".join(parts)
    assert "\x1b" not in "".join(parts) + clean.finish()


@pytest.mark.parametrize("size", [1, 3, 8])
def test_rendered_markdown_shows_no_model_escape(size: int) -> None:
    rendered = streamed_render(chunked(NASTY, size), "truecolor")
    assert CLIPBOARD not in rendered and "\x1b[2J" not in rendered and "\x1bP" not in rendered
    assert screen_of(rendered) == screen_of(whole_render(CLEAN, "truecolor"))


def test_without_neutralizing_the_escapes_would_reach_the_terminal() -> None:
    """The twin: rich passes model text through, so the renderer must clean it."""
    raw = whole_render(NASTY, "truecolor")
    assert CLIPBOARD in raw or "\x1b]52" in raw
    with pytest.raises(ValueError, match="unexpected escape"):
        screen_of(raw)


def test_plain_output_shows_no_model_escape() -> None:
    out = io.StringIO()
    r = PlainRenderer(out)
    r.handle(BlockStart(index=0, kind="text"))
    for chunk in chunked(NASTY, 3):
        r.handle(BlockDelta(index=0, kind="text", text=chunk))
    r.handle(BlockStop(index=0, kind="text"))
    r.handle(TurnComplete(stop_reason="stop"))
    assert out.getvalue() == CLEAN


def test_no_color_renders_markdown_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    doc = "Port **8080** is free.\n\n| port | state |\n|---|---|\n| 8080 | free |\n"
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="truecolor")
    r = renderer(console)
    r.handle(BlockStart(index=0, kind="text"))
    for chunk in chunked(doc, 4):
        r.handle(BlockDelta(index=0, kind="text", text=chunk))
    r.handle(TurnComplete(stop_reason="stop"))
    shown = [re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip() for line in screen_of(output(console))]
    assert "Port 8080 is free." in shown
    assert not any("**" in line or "|---|" in line for line in shown)
    assert any(line.strip() and set(line.strip()) == {"─"} for line in shown)  # a drawn table
    assert any(line.split() == ["8080", "free"] for line in shown)
    assert "38;" not in output(console) and "48;" not in output(console)  # no colour at all


def test_tool_output_names_errors_and_reasons_are_neutralized() -> None:
    console = make_console("truecolor")
    r = renderer(console)
    evil_tool = "run\x1b]0;x\x07_command"
    r.handle(BlockStart(index=0, kind="tool_use", call_id="c", tool=evil_tool))
    r.handle(BlockStop(index=0, kind="tool_use", call_id="c", tool=evil_tool,
                       input={"command": "cat \x1b[2Jf.txt"}))
    for chunk in chunked("out\x1b]52;c;eA==\x07put\r\nline \x1b[31mtwo\n", 3):
        r.handle(ToolProgress(call_id="c", tool=evil_tool, status="output", output=chunk))
    r.handle(BlockStop(index=1, kind="tool_result", call_id="c", tool=evil_tool,
                       content="result \x1b]8;;http://evil\x07link\x1b]8;;\x07\n"))
    r.handle(ApprovalEvent(call_id="d", tool=evil_tool, decision="allow", by="user",
                           reason="allowed; remembered no \x1b[8mhidden"))
    r.handle(Notice("retrying \x1b[2J"))
    r.handle(ErrorEvent(message="provider said \x1b]52;c;eA==\x07 boom"))
    r.close()
    text = output(console)
    assert "\x1b]52" not in text and "\x1b[2J" not in text and "\x1b]0;" not in text
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(screen_of(text)))
    for visible in ("run_command", "cat f.txt", "result link", "no hidden", "boom"):
        assert visible in shown


def test_fast_markdown_renders_exactly_like_rich() -> None:
    from swebash_py.render.md import FastMarkdown

    doc = (CLEAN + "\n```python\ndef f(x):\n\treturn x  # tab\n```\n\n```nosuchlang\nraw\n```\n"
           "\n    indented\n\n> quote\n\n1. one\n2. two ~~gone~~ [l](http://x)\n")
    for width in (40, 100):
        want = make_console("truecolor", width)
        want.print(RichMarkdown(doc))  # rich's, with our code blocks (never wrapped)
        got = make_console("truecolor", width)
        got.print(FastMarkdown(doc))
        assert _strip_link_ids(output(got)) == _strip_link_ids(output(want))


def _strip_link_ids(text: str) -> str:
    return re.sub(r"\x1b\]8;id=\d+;", "\x1b]8;;", text)
