"""``TtyText`` writes a prose answer's bytes as the rich ``Renderer`` does, without rich.

Each case streams the same events through ``TtyText`` and through ``Renderer`` on a
rich console (forced terminal, fixed size, a ``StringIO``), both on their own
``FakeClock`` with the same step (so the same readings give the same frames), no
ticker, redraws costing no time; every byte is compared, live frames included,
and ``TtyText`` must not have handed over. Hand-over cases (Markdown arriving
late, tools, thinking, notices, errors, stop notes, wide characters) compare the
final screen (pyte) instead: the live region is drawn again after a hand-over,
so the bytes differ, what the user is left with must not. Twins show the
comparisons catch a difference.
"""

from __future__ import annotations

import io
import random
import re
import threading
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import pyte
import pytest

from swebash_py.cli import tty_text
from swebash_py.cli.tty_text import TtyText, mirrors
from swebash_py.events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorEvent,
    Notice,
    ToolProgress,
    TurnComplete,
    TurnStart,
    UsageEvent,
)
from swebash_py.render import live
from swebash_py.render.console import Renderer
from swebash_py.render.prose import is_prose
from tests.render.helpers import FakeClock, chunked, make_console, output, text_events
from tests.render.test_render_prose import LATE_MARKDOWN, PROSE

ASCII_PROSE = {name: text for name, text in PROSE.items() if text.isascii()} | {
    "one_cell_unicode": "Café — naïve “quotes” and ‘single’ ones… façade, Ærø, ñ, ß.\n\n"
                        "Greek αβγ, Cyrillic жзи, boxes ─│┌ and braille ⠁⠂ — all one cell,"
                        " with\u00a0no-break\u00a0spaces\u00a0inside a long line that wraps.",
    "empty": "",
    "newline_only": "\n",
    "blank_lines_only": "\n\n\n",
    "crlf_paragraphs": "One.\r\n\r\nTwo,\r\nstill two.\r\n\r\n",
    "trailing_newlines": "Done.\n\n\n\n",
    "long_word": "Look: " + "x" * 230 + " and then some more words after it.",
    "spaces_inside": "Two  spaces   and three   here,   then a very long run of words "
                     "that goes on   to wrap at most widths   we try.",
    "many_short": "\n\n".join(f"Step {n} done." for n in range(40)),
    "one_long_paragraph": " ".join(f"word{n}" for n in range(400)),
}
NOT_OURS = {"wide": PROSE["wide"], "late_wide": "Plain words first.\n\nThen 日本.",
            "late_emoji": "Plain — words “first”.\n\nThen 🎉 party.",
            "combining": "Plain words.\n\nCafe\u0301 with a combining accent.",
            "not_prose_tail": "Fine so far.\n\nthen a * star"}


@pytest.fixture(autouse=True)
def _free_redraws(monkeypatch: pytest.MonkeyPatch) -> None:
    """A redraw stretches the time to the next frame by its measured cost: none here."""
    monkeypatch.setattr(live, "time", SimpleNamespace(perf_counter=lambda: 0.0))
    monkeypatch.setattr(tty_text, "time", SimpleNamespace(perf_counter=lambda: 0.0))


class Run:
    """One renderer's run: its output, and whether ``TtyText`` handed over."""

    def __init__(self, width: int, height: int, step: float) -> None:
        self.console = make_console("standard", width, height)
        self.clock = FakeClock(step)
        self.handed_over = False

    def rich(self) -> Renderer:
        return Renderer(self.console, clock=self.clock, tick=None)

    def tty(self) -> TtyText:
        def real() -> Renderer:
            self.handed_over = True
            return self.rich()

        out = self.console.file
        return TtyText(out, real=real, size=lambda: (self.console.width, self.console.height),
                       clock=self.clock, tick=None)  # type: ignore[arg-type]

    def bytes(self) -> str:
        return re.sub(r"(?<=\x1b]8;)id=\d+;", "id=;", output(self.console))


def play(events: Iterable[object], *, width: int = 80, height: int = 25, step: float = 0.01,
         tty: bool) -> Run:
    run = Run(width, height, step)
    r: Any = run.tty() if tty else run.rich()
    for event in events:
        r.handle(event)
    r.close()
    return run


def both(events: list[object], **size: Any) -> tuple[Run, Run]:
    return play(events, tty=True, **size), play(events, tty=False, **size)


def screen(raw: str, width: int) -> list[str]:
    """The final screen (pyte), tall enough that nothing scrolls off."""
    term = pyte.Screen(width, 400)
    pyte.Stream(term).feed(raw.replace("\n", "\r\n"))
    lines = [line.rstrip() for line in term.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def assert_same_bytes(events: list[object], **size: Any) -> None:
    ours, theirs = both(events, **size)
    assert not ours.handed_over
    assert ours.bytes() == theirs.bytes()


# ------------------------------------------------------------ byte for byte

@pytest.mark.parametrize("name", sorted(ASCII_PROSE))
@pytest.mark.parametrize("size", [1, 4, 13, 100_000])
def test_prose_bytes_equal_the_renderers(name: str, size: int) -> None:
    text = ASCII_PROSE[name]
    if size == 1 and len(text) > 2000:
        size = 3
    for width, height, step in ((80, 25, 0.01), (20, 6, 0.02), (200, 50, 0.003)):
        assert_same_bytes(text_events(chunked(text, size)), width=width, height=height,
                          step=step)


@pytest.mark.parametrize("width", [20, 21, 33, 47, 80, 119, 200])
@pytest.mark.parametrize("height", [2, 3, 7, 24, 60])
def test_widths_and_heights(width: int, height: int) -> None:
    for text in (ASCII_PROSE["wraps"], ASCII_PROSE["many_paragraphs"],
                 ASCII_PROSE["long_word"], ASCII_PROSE["spaces_inside"]):
        for size in (4, 29):
            assert_same_bytes(text_events(chunked(text, size)), width=width, height=height)


@pytest.mark.parametrize("step", [0.0, 0.001, 0.013, 0.026, 0.05, 0.3])
def test_frames_at_any_clock(step: float) -> None:
    """Frames fall at different chunks (none after the first when the clock stands)."""
    for text in ASCII_PROSE.values():
        assert_same_bytes(text_events(chunked(text, 7)), width=50, height=10, step=step)


def test_random_answers_chunkings_sizes_and_clocks() -> None:
    rng = random.Random(5)
    words = ["Hello!", "How", "can", "I", "help?", "a", "x" * 37, "(b)", "1999", "c-d", "e:",
             "2024.", "=", "it's", "50%", "  ", "   ", "café", "—", "“q”", "a\u00a0b", "…",
             "ж" * 30]
    breaks = ["\n", "\n\n", "\r\n", "\n\n\n", "\r\n\r\n"]
    drawn = 0
    for _ in range(300):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
                 for _ in range(rng.randint(0, 8))]
        text = "".join(line.strip() + rng.choice(breaks) for line in lines)[:rng.randint(0, 900)]
        clean = text.replace("\r\n", "\n").replace("\r", "\n")
        if not is_prose(clean):
            continue  # the hand-over cases cover it
        chunks = []
        rest = text
        while rest:
            n = rng.randint(1, 30)
            chunks.append(rest[:n])
            rest = rest[n:]
        assert_same_bytes(text_events(chunks), width=rng.randint(20, 120),
                          height=rng.randint(2, 30), step=rng.choice([0.0, 0.004, 0.02, 0.07]))
        drawn += 1
    assert drawn > 100


@pytest.mark.parametrize("color_system", [None, "standard", "256", "truecolor"])
def test_colour_systems_and_no_color(color_system: str | None,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Prose has no style: the colour system and NO_COLOR change none of rich's bytes."""
    events = text_events(chunked(ASCII_PROSE["two_paragraphs"] + ASCII_PROSE["wraps"], 6))
    for no_color in (False, True):
        if no_color:
            monkeypatch.setenv("NO_COLOR", "1")
        theirs = Run(30, 8, 0.01)
        theirs.console = make_console(color_system, 30, 8)
        assert theirs.console.no_color is no_color
        r = theirs.rich()
        for event in events:
            r.handle(event)
        assert play(events, width=30, height=8, tty=True).bytes() == theirs.bytes()


def test_the_benchmark_answer_in_detail() -> None:
    ours, theirs = both(text_events(chunked("Hello! How can I help?", 4)))
    pad = " " * 58
    assert ours.bytes() == theirs.bytes() == (
        f"\x1b[?25lHell{' ' * 76}\r\x1b[2KHello! How can I help?{pad}\r\x1b[2K\x1b[?25h\r"
        f"Hello! How can I help?{pad}\n")


class StandingClock:
    """A clock that moves only when told (the ticker's frames then fall where told)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_ticker_draws_the_frame_the_throttle_held_back() -> None:
    """With a ticker: a chunk held back by the throttle is drawn by the ticker once
    time passes, by both renderers, the same bytes."""
    outputs = []
    for tty in (True, False):
        console = make_console("standard", 40, 10)
        clock = StandingClock()
        r: Any = (TtyText(console.file, real=lambda: pytest.fail("handed over"),  # type: ignore[arg-type]
                          size=lambda: (40, 10), clock=clock, tick=0.005) if tty
                  else Renderer(console, clock=clock, tick=0.005))
        r.handle(TurnStart(model="m"))
        r.handle(BlockDelta(index=0, kind="text", text="Hello"))  # drawn at once
        r.handle(BlockDelta(index=0, kind="text", text=" world"))  # held back
        assert "Hello world" not in output(console)
        clock.now = 1.0
        waited = 0
        while "Hello world" not in output(console):  # the ticker's frame
            assert waited < 2000, output(console)
            threading.Event().wait(0.005)
            waited += 1
        r.handle(BlockStop(index=0, kind="text"))
        r.handle(TurnComplete(stop_reason="stop"))
        outputs.append(output(console))
    assert outputs[0] == outputs[1]


def test_usage_and_empty_chunks_draw_as_the_renderer() -> None:
    events = text_events(["", "Some ", "", "text."])
    events.insert(-1, UsageEvent(input_tokens=3, output_tokens=4))
    assert_same_bytes(events)


def test_two_turns_and_a_second_text_block_with_nothing_printed() -> None:
    assert_same_bytes([TurnStart(model="m"), BlockStart(index=0, kind="text"),
                       BlockStop(index=0, kind="text"), *text_events(["Then ", "words."])])


def test_the_byte_comparison_catches_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: the region erased one line short is told apart."""
    real = TtyText._position

    def short(self: TtyText) -> str:
        return real(self).replace("\x1b[1A\x1b[2K", "", 1)

    monkeypatch.setattr(TtyText, "_position", short)
    ours, theirs = both(text_events(chunked(ASCII_PROSE["many_paragraphs"], 5)), width=20)
    assert ours.bytes() != theirs.bytes()


# ------------------------------------------------------------ hand-over


def tool_round(call_id: str = "c1") -> list[object]:
    return [BlockStart(index=1, kind="tool_use", call_id=call_id, tool="run_command"),
            BlockStop(index=1, kind="tool_use", call_id=call_id, tool="run_command",
                      input={"command": "ls"}),
            ToolProgress(call_id=call_id, tool="run_command", status="running"),
            ToolProgress(call_id=call_id, tool="run_command", status="output", output="a\nb\n"),
            ToolProgress(call_id=call_id, tool="run_command", status="done"),
            BlockStop(index=2, kind="tool_result", call_id=call_id, tool="run_command",
                      content="a\nb\n")]


def texts(index: int, text: str, size: int = 5) -> list[object]:
    return [BlockStart(index=index, kind="text"),
            *(BlockDelta(index=index, kind="text", text=c) for c in chunked(text, size)),
            BlockStop(index=index, kind="text", content=text)]


PROSE_A = "Let me look at the files in this folder first.\n\nOne moment."
HAND_OVERS: dict[str, list[object]] = {
    **{f"late_{name}": text_events(chunked(text, 4)) for name, text in LATE_MARKDOWN.items()},
    **{f"not_ours_{name}": text_events(chunked(text, 4)) for name, text in NOT_OURS.items()},
    "tool_after_prose": [TurnStart(model="m"), *texts(0, PROSE_A), *tool_round(),
                         *texts(3, "There are two files: a and b."),
                         TurnComplete(stop_reason="stop")],
    "tool_while_text_open": [TurnStart(model="m"), BlockStart(index=0, kind="text"),
                             *(BlockDelta(index=0, kind="text", text=c)
                               for c in chunked(PROSE_A, 6)), *tool_round(),
                             TurnComplete(stop_reason="stop")],
    "thinking_first": [TurnStart(model="m"), BlockStart(index=0, kind="thinking"),
                       BlockDelta(index=0, kind="thinking", text="hmm, the user wants"),
                       BlockStop(index=0, kind="thinking"), *texts(1, PROSE_A),
                       TurnComplete(stop_reason="stop")],
    "notice_first": [Notice("using the default model"), *text_events(chunked(PROSE_A, 3))],
    "notice_mid_answer": [TurnStart(model="m"), BlockStart(index=0, kind="text"),
                          BlockDelta(index=0, kind="text", text="Half of it\n\nand "),
                          Notice("retrying"), BlockDelta(index=0, kind="text", text="the rest."),
                          BlockStop(index=0, kind="text"), TurnComplete(stop_reason="stop")],
    "error_mid_answer": [TurnStart(model="m"), *texts(0, PROSE_A[:30]),
                         ErrorEvent("connection reset"), TurnComplete(stop_reason="error")],
    "cut_off": [*text_events(chunked(PROSE_A, 5))[:-1], TurnComplete(stop_reason="length")],
    "cancelled": [*text_events(chunked(PROSE_A, 5))[:-2], TurnComplete(stop_reason="cancelled")],
    "two_text_blocks": [TurnStart(model="m"), *texts(0, "First block."),
                        *texts(1, "Second block."), TurnComplete(stop_reason="stop")],
    "ends_in_a_held_cr_after_a_space": text_events(["Ends with a space \r"]),
}
# At 24x5 its first frame settles a paragraph, then previews a screenful cut before
# 4 spaces (an indented code block: rich's to draw).
SETTLED_THEN_RICH_PREVIEW = text_events(
    ["Para one.\n\nwords    words\n" + "words    " * 60 + "abcdefgh", " more."])


@pytest.mark.parametrize("name", sorted(HAND_OVERS))
@pytest.mark.parametrize(("width", "height"), [(80, 25), (24, 5)])
def test_hand_over_leaves_the_screen_as_the_renderer(name: str, width: int,
                                                     height: int) -> None:
    ours, theirs = both(HAND_OVERS[name], width=width, height=height)
    assert ours.handed_over
    assert screen(ours.bytes(), width) == screen(theirs.bytes(), width)


def test_prose_then_a_tool_draws_the_prose_ourselves_first() -> None:
    """Up to the tool call nothing needs rich: the answer so far is ours, byte for byte."""
    events = HAND_OVERS["tool_after_prose"]
    first_tool = next(i for i, e in enumerate(events) if isinstance(e, BlockStart)
                      and e.kind == "tool_use")
    assert_same_bytes(events[:first_tool])


def test_a_hand_over_mid_frame_prints_what_the_frame_settled() -> None:
    ours, theirs = both(SETTLED_THEN_RICH_PREVIEW, width=24, height=5)
    assert ours.handed_over
    assert screen(ours.bytes(), 24) == screen(theirs.bytes(), 24)


def test_the_screen_comparison_catches_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: a hand-over that forgets the paragraphs queued for the next frame."""
    real = TtyText._hand_over

    def forgetful(self: TtyText, *, redraw: bool = False) -> Renderer:
        self._pending.clear()
        return real(self, redraw=redraw)

    monkeypatch.setattr(TtyText, "_hand_over", forgetful)
    events = SETTLED_THEN_RICH_PREVIEW
    ours, theirs = both(events, width=24, height=5)
    assert ours.handed_over
    assert screen(ours.bytes(), 24) != screen(theirs.bytes(), 24)


def test_a_preview_cut_before_four_spaces_is_rich_markdown() -> None:
    """A screenful cut mid-line before 4 spaces starts an indented code block in the
    preview: rich's to draw (the twin: cut before 3, ours byte for byte)."""
    for gap, ours_to_draw in (("    ", False), ("   ", True)):
        text = ("words" + gap) * 60
        events = text_events(chunked(text, 7))
        ours, theirs = both(events, width=24, height=5)
        assert ours.handed_over is not ours_to_draw
        assert screen(ours.bytes(), 24) == screen(theirs.bytes(), 24)
        if ours_to_draw:
            assert ours.bytes() == theirs.bytes()


def test_suspend_hands_over() -> None:
    run = Run(80, 25, 0.01)
    r = run.tty()
    r.handle(BlockDelta(index=0, kind="text", text="Asking first"))
    with r.suspend():
        pass
    assert run.handed_over


def test_prose_lines_equal_rich_text_at_any_width() -> None:
    """``prose_lines`` against rich's own ``Prose`` rendering: words longer than the
    width (folded), runs of spaces, no-break spaces, one-cell Unicode; widths 1-90."""
    from swebash_py.render.prose_lines import prose_lines
    from swebash_py.render.prose_view import Prose

    rng = random.Random(11)
    words = ["a", "bb", "ccc", "hello", "x" * 25, "y" * 7, "!", "(z)", "  ", " ", "w" * 60,
             "café", "—", "a\u00a0b", "\u00a0", "ж" * 13]
    for _ in range(1500):
        paras = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 20))).strip()
                 for _ in range(rng.randint(1, 3))]
        paras = [p for p in paras if p]
        if not paras:
            continue
        width = rng.randint(1, 90)
        console = make_console("standard", width, 20)
        console.print(Prose(paras))
        assert "\n".join(prose_lines(paras, width)) + "\n" == output(console), (paras, width)


def test_what_is_drawn_here_is_one_cell_in_every_unicode_version_rich_knows() -> None:
    from rich._unicode_data import VERSIONS
    from rich.cells import get_character_cell_size

    from swebash_py.render.prose_lines import drawable

    chars = [chr(n) for n in range(0x3000) if drawable(chr(n)) and chr(n) != "\n"]
    assert len(chars) > 900 and "—" in chars and "é" in chars
    for version in VERSIONS:
        assert all(get_character_cell_size(ch, version) == 1 for ch in chars), version
    # the twin: the check sees a character that is not one cell
    assert not drawable("日") and get_character_cell_size("日", VERSIONS[-1]) == 2
    assert not drawable("\u0301") and get_character_cell_size("\u0301", VERSIONS[-1]) == 0


# ------------------------------------------------------------ where it is used


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        if self.closed:
            raise ValueError("I/O operation on closed file")
        return True


@pytest.mark.parametrize(("name", "value"), [
    ("FORCE_COLOR", "1"), ("FORCE_COLOR", ""), ("TTY_COMPATIBLE", "1"), ("TTY_COMPATIBLE", "0"),
    ("TTY_INTERACTIVE", "0"), ("TTY_INTERACTIVE", "1"), ("TERM", "dumb"), ("TERM", "UNKNOWN"),
    ("COLUMNS", "0"), ("LINES", "0"),
])
def test_what_it_does_not_mirror(name: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert mirrors(FakeTty())  # the twin: the same terminal without the variable
    monkeypatch.setenv(name, value)
    assert not mirrors(FakeTty())


def test_not_a_terminal_is_not_mirrored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    assert not mirrors(io.StringIO())
    closed = FakeTty()
    closed.close()
    assert not mirrors(closed)


@pytest.mark.parametrize(("columns", "lines"), [(None, None), ("100", None), (None, "9"),
                                                ("120", "40"), ("abc", "x1"), ("33", "0")])
def test_the_size_is_rich_consoles(columns: str | None, lines: str | None,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    for name, value in (("COLUMNS", columns), ("LINES", lines)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert tty_text.TerminalSize()() == tuple(Console().size)
