"""Plain prose is drawn without markdown-it, byte for byte as the Markdown path draws it.

Each case streams the same events through the renderer twice on identical
consoles (same fake clock, so the same live frames): once as it runs, once with
the prose fast path switched off (every text then goes through ``BlockSplitter``
and ``FastMarkdown``), and compares every byte written, live frames included.
Cases cover short plain answers, Markdown or code that first appears late,
colour systems and NO_COLOR, narrow widths, wide characters and lines that wrap.
Twins show that the comparison catches a drawing that differs, and that the
prose cases really take the fast path.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from rich.console import Console
from rich.markdown import Markdown

from swebash_py.render import live, prose, prose_view
from swebash_py.render.console import Renderer
from swebash_py.render.md import FastMarkdown
from tests.render.helpers import (
    FakeClock,
    chunked,
    make_console,
    output,
    renderer,
    text_events,
    whole_render,
)
from tests.render.render_screen import screen_of

PROSE = {
    "short": "Hello! How can I help?",
    "sentence_with_newline": "Sure: run it again, then check the log.\n",
    "two_paragraphs": "First paragraph, one line.\n\nSecond paragraph\nspans two lines.\n",
    "many_paragraphs": "\n\n".join(f"Paragraph {n}: some words (and more) 100% done."
                                   for n in range(12)),
    "wraps": "This line is long enough that it has to wrap on a narrow terminal, "
             "and even at eighty columns it goes on and on past the right edge.",
    "wide": "日本語のテキストは二つの列を使います。 Emoji too: 🎉🎉 done.\n\nδ ε ζ: ok",
    "leading_blank_lines": "\n\n\nStarts after blank lines.\n\n\n\nEnds after more.\n\n",
    "crlf": "Line one\r\nline two\r\n\r\nNext para\r\n",
    "trailing_cr": "para1\n\npara2\r",
    "digits_not_a_list": "2024 was a year.\n123456789012. is not a marker\n1a) neither",
    "punctuation": "Yes! It's 5$ + 3% = ok; a/b: c@d {x} ^y (z) \"q\" 'r' #tag - dash.",
    "long": ("A sentence that goes on for a while, repeated to pass the rationing size.\n"
             * 80 + "\n") * 2,
}
LATE_MARKDOWN = {
    "emphasis": "Plain start.\n\nThen **bold** and _em_ text.\n",
    "code_fence": "Here it is:\n\n```python\ndef f():\n    return 1\n```\n\nDone.\n",
    "inline_code": "Use the `ls` command.",
    "list": "Options:\n\n- one\n- two\n",
    "list_right_after_text": "Options:\n- one\n- two",
    "ordered": "Steps\n\n1. first\n2) second\n",
    "setext": "A title\n===\n\nBody.\n",
    "setext_dash": "A title\n---\nBody.",
    "heading": "Intro.\n\n# Heading\n\ntext",
    "quote": "He said:\n> quoted\n",
    "link": "See [the docs](http://example.com) now.",
    "table": "Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "indented_code": "Intro\n\n    code line\n",
    "hard_break": "Line with two spaces  \nnext line",
    "soft_space": "Line with a space \nnext line",
    "html": "Before\n<div>x</div>\n",
    "entity": "Fish &amp; chips",
    "escape": "Not \\*emphasis\\*",
    "tab": "a\tb",
    "late_after_long_prose": PROSE["long"] + "And `code` at last.\n\n```sh\nls\n```\n",
}
SIZES = [1, 3, 4, 13, 100_000]
_LINK_ID = re.compile(r"(?<=\x1b]8;)id=\d+;")


@pytest.fixture
def no_fast_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every text counts as Markdown: the path all text took before ``prose``."""
    monkeypatch.setattr(prose, "_RISKY", re.compile(r"[\s\S]"))
    yield


def stream(text: str, size: int, *, color_system: str | None = "standard", width: int = 80,
           console: Console | None = None) -> str:
    console = console or make_console(color_system, width)
    r = renderer(console)
    for event in text_events(chunked(text, size)):
        r.handle(event)
    return _LINK_ID.sub("id=;", output(console))  # rich numbers links at random


def both(text: str, size: int, monkeypatch: pytest.MonkeyPatch, **options: object) -> tuple[
        str, str]:
    """(fast path's bytes, Markdown path's bytes) for ``text`` in chunks of ``size``.

    A slow redraw stretches the time to the next frame (measured on the real clock);
    here every redraw takes no time, so both runs draw the same frames."""
    monkeypatch.setattr(live, "time", SimpleNamespace(perf_counter=lambda: 0.0))
    fast = stream(text, size, **options)  # type: ignore[arg-type]
    with monkeypatch.context() as m:
        m.setattr(prose, "_RISKY", re.compile(r"[\s\S]"))
        full = stream(text, size, **options)  # type: ignore[arg-type]
    return fast, full


@pytest.mark.parametrize(("name", "size"), [
    (name, size) for name in sorted(PROSE) for size in SIZES if name != "long" or size > 3])
def test_prose_bytes_equal_the_markdown_path(name: str, size: int,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fast, full = both(PROSE[name], size, monkeypatch)
    assert fast == full


@pytest.mark.parametrize(("name", "size"), [
    (name, size) for name in sorted(LATE_MARKDOWN) for size in SIZES
    if name != "late_after_long_prose" or size > 3])
def test_markdown_arriving_late_bytes_equal_the_markdown_path(
        name: str, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, full = both(LATE_MARKDOWN[name], size, monkeypatch)
    assert fast == full


@pytest.mark.parametrize("color_system", [None, "standard", "256", "truecolor"])
@pytest.mark.parametrize("width", [1, 5, 12, 40, 200])
def test_widths_and_colour_systems(color_system: str | None, width: int,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [t for name, t in PROSE.items() if name != "long"]
    for text in (*texts, LATE_MARKDOWN["code_fence"], LATE_MARKDOWN["emphasis"]):
        for size in (4, 100_000):
            fast, full = both(text, size, monkeypatch, color_system=color_system, width=width)
            assert fast == full, (text[:30], size)


def test_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    for text in (PROSE["two_paragraphs"], PROSE["wide"], LATE_MARKDOWN["code_fence"]):
        fast, full = both(text, 4, monkeypatch, color_system="truecolor", width=30)
        assert make_console("truecolor").no_color
        assert fast == full


def test_prose_equals_rich_markdown_on_the_final_screen() -> None:
    for text in PROSE.values():
        for width in (12, 80):
            assert screen_of(stream(text, 4, width=width)) == screen_of(
                whole_render(text.replace("\r\n", "\n").replace("\r", "\n"), "standard",
                             width)), text[:30]


def test_prose_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``FastMarkdown`` is built for prose (so markdown-it is not needed); one is
    for the first chunk that could be Markdown."""
    built: list[str] = []
    real_init = FastMarkdown.__init__

    def count(self: FastMarkdown, markup: str, *args: object, **kwargs: object) -> None:
        built.append(markup)
        real_init(self, markup, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FastMarkdown, "__init__", count)
    for text in PROSE.values():
        stream(text, 4)
    assert built == []
    stream(LATE_MARKDOWN["emphasis"], 4)
    assert built


def test_the_comparison_catches_a_drawing_that_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: a prose drawing off by one detail (no left justification, so no padding)
    is told apart from the Markdown path's."""
    real = prose_view.Text

    def unjustified(text: str, justify: str | None = None) -> object:
        return real(text)

    monkeypatch.setattr(prose_view, "Text", unjustified)
    fast, full = both(PROSE["short"], 4, monkeypatch)
    assert fast != full


def test_random_prose_like_texts_render_as_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random texts over an alphabet of syntax and near-syntax: where ``is_prose`` says
    prose, ``Prose`` draws what rich's ``Markdown`` draws; streamed, the bytes equal
    the Markdown path's; the splitter's running verdict equals ``is_prose`` of the text."""
    rng = random.Random(17)
    near = ["lorem", "Ip", "dolor", "sit", "amet", "9", "12", ".", ")", "!", ":", " ", " ", " ",
            "\n", "\n\n", "é", "日本", "#", "-", "=", "+", ">", "\u00a0", "\r\n", " \n", "1. "]
    alphabet = near + list("*_`[]<&~|\\\t")
    seen_prose = 0
    for n in range(600):
        chars = near if n % 3 else alphabet
        text = "".join(rng.choice(chars) for _ in range(rng.randint(1, 30)))
        clean = text.replace("\r\n", "\n").replace("\r", "\n")
        if prose.is_prose(clean):
            seen_prose += 1
            for width in (7, 30):
                ours = make_console("standard", width)
                ours.print(prose_view.Prose(prose.paragraphs(clean)))
                assert output(ours) == whole_render(clean, "standard", width), repr(clean)
        splitter = prose.ProseSplitter()
        added = ""
        for chunk in chunked(text, rng.randint(1, 5)):
            splitter.add(chunk)
            added += chunk
            normal = added.replace("\r\n", "\n").replace("\r", "\n")
            if not added.endswith("\r"):
                assert splitter.prose == prose.is_prose(normal), repr(added)
        size = rng.choice([1, 2, 5, 100])
        fast, full = both(text, size, monkeypatch, width=rng.choice([6, 20, 80]))
        assert fast == full, repr(text)
    assert seen_prose > 60


@pytest.mark.parametrize("text", [
    "a *b*", "a _b_", "`x`", "[x]", "a ]", "<b>", "&amp;", "a\\b", "~~s~~", "a | b", "a\tb",
    "# h", "#", "> q", "- i", "-", "+ i", "= x", "1. i", "1) i", "123456789. i", " lead",
    "a\n b", "trail \nx", "a\n\n  b", "a\n\u00a0b",
])
def test_what_is_not_prose(text: str) -> None:
    assert not prose.is_prose(text)


@pytest.mark.parametrize("text", [
    "", "Hello!", "a\nb", "a\n\nb", "2024 rocks", "1234567890. long", "x - y = z # c",
    "ok: (yes) {no} 5% $3 @me ^_^"[:-3], "trailing space at the end ",
])
def test_what_is_prose(text: str) -> None:
    assert prose.is_prose(text)


def test_a_trailing_carriage_return_loses_no_paragraph(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``\\r`` held back to the end of the text used to settle the blocks before it
    and drop them: now both paths show every paragraph."""
    for fast_path in (True, False):
        with monkeypatch.context() as m:
            if not fast_path:
                m.setattr(prose, "_RISKY", re.compile(r"[\s\S]"))
            lines = [line.strip() for line in screen_of(stream("para1\n\npara2\r", 100_000))]
        assert [line for line in lines if line] == ["para1", "para2"]


def test_rich_markdown_draws_the_samples_as_paragraphs_only() -> None:
    """The premise: markdown-it sees only paragraphs of plain text in the prose samples."""
    for text in PROSE.values():
        clean = text.replace("\r\n", "\n").replace("\r", "\n")
        kinds = {t.type for t in Markdown(clean).parsed}
        assert kinds <= {"paragraph_open", "paragraph_close", "inline"}, (text[:30], kinds)
        children = {c.type for t in Markdown(clean).parsed for c in t.children or []}
        assert children <= {"text", "softbreak"}


def test_the_renderer_is_a_renderer() -> None:
    assert isinstance(renderer(make_console()), Renderer)
    assert FakeClock()() > 0
