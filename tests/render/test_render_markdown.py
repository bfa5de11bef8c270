"""Streamed markdown ends up exactly like rendering the whole answer at once."""

from __future__ import annotations

import random

import pytest
from rich.markdown import Markdown

from swebash_py.render.blocks import BlockSplitter
from tests.render.helpers import (
    FakeClock,
    chunked,
    make_console,
    output,
    renderer,
    streamed_render,
    whole_render,
)
from tests.render.render_screen import screen_of

MIXED = """# Title

Some *para* text with `code`
that continues on a second line.

- item 1
- item 2

  nested para

  - sub a
  - sub b
- item 3

3. three
4. four

```python
def f():

    return 1


# still code
```

| name | value |
|------|------:|
| a    | 1     |
| b    | 22    |

> quote line
continued lazily
>
> second paragraph in the quote

---
Setext heading
==============

    indented code

    more indented code

Final [link][r] para.

[r]: http://example.com
"""

CODE_HEAVY = """Here is the fix:

````markdown
```python
x = 1

y = 2
```
````

~~~
tilde fence

with a blank line
~~~

After the fences.
"""

LISTS = """1. first

   continued first

2. second
   - inner one
   - inner two

     deep para
3. third

* star list
* another
"""

QUOTES_AND_RULES = """> # Heading in quote
>
> - list in quote
>
> ```
> code in quote
> ```

***

Text right after a rule.
___
## Closing heading
"""

NO_FINAL_NEWLINE = "Para one.\n\nPara two without a final newline, **bold** and _em_."

CRLF = "Line one\r\nstill one\r\n\r\n- a\r\n- b\r\n"

DOCS = {
    "mixed": MIXED,
    "code": CODE_HEAVY,
    "lists": LISTS,
    "quotes": QUOTES_AND_RULES,
    "no_final_newline": NO_FINAL_NEWLINE,
    "crlf": CRLF,
}


@pytest.mark.parametrize("name", sorted(DOCS))
@pytest.mark.parametrize("size", [1, 4, 13, 100_000])
def test_streamed_screen_equals_whole_render(name: str, size: int) -> None:
    doc = DOCS[name]
    assert screen_of(streamed_render(chunked(doc, size))) == screen_of(whole_render(doc))


@pytest.mark.parametrize("name", ["mixed", "code", "quotes"])
def test_streamed_equals_whole_with_truecolor_styles(name: str) -> None:
    doc = DOCS[name]
    got = screen_of(streamed_render(chunked(doc, 4), "truecolor"))
    want = screen_of(whole_render(doc, "truecolor"))
    assert any("\x1b[" in line for line in want)  # styles really are compared
    assert got == want


def test_random_chunkings() -> None:
    rng = random.Random(1234)
    doc = "\n".join(DOCS.values())
    want = screen_of(whole_render(doc))
    for _ in range(8):
        cuts = sorted(rng.sample(range(1, len(doc)), rng.randint(5, 400)))
        chunks = [doc[a:b] for a, b in zip([0, *cuts], [*cuts, len(doc)], strict=True)]
        assert screen_of(streamed_render(chunks)) == want


def test_every_split_position_of_a_short_doc() -> None:
    doc = "Intro para\nwrapping.\n\n```sh\nls\n\nls -la\n```\n\n- a\n- b\n"
    want = screen_of(whole_render(doc))
    for cut in range(1, len(doc)):
        assert screen_of(streamed_render([doc[:cut], doc[cut:]])) == want, cut


def test_blocks_join_to_whole_render_byte_for_byte() -> None:
    """Without the live region: settled blocks plus rich's gaps are the whole render."""
    for doc in DOCS.values():
        console = make_console("truecolor")
        splitter = BlockSplitter()
        blocks = [b for chunk in chunked(doc, 3) for b in splitter.feed(chunk)]
        blocks += splitter.finish()
        for block in blocks:
            if block.gap_before:
                console.print()
            console.print(block.markdown)
        assert _strip_link_ids(output(console)) == _strip_link_ids(whole_render(doc, "truecolor"))


def _strip_link_ids(text: str) -> str:
    import re

    return re.sub(r"\x1b\]8;id=\d+;", "\x1b]8;;", text)


def test_blocks_settle_while_streaming() -> None:
    """Settled blocks are printed before the answer ends, each exactly once."""
    splitter = BlockSplitter()
    settled: list[str] = []
    for chunk in chunked("# A\n\npara one\n\n```\nx\n\ny\n```\n\nlast\npart", 2):
        settled += [b.source for b in splitter.feed(chunk)]
    assert settled == ["# A", "para one", "```\nx\n\ny\n```"]
    assert splitter.tail == "last\npart"  # a block settles only once the next one starts
    assert [b.source for b in splitter.finish()] == ["last\npart"]


def test_blank_line_inside_open_fence_settles_nothing() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("```\ncode\n\n\nmore\n\n") == []
    assert splitter.open_fence
    assert splitter.feed("```\n\nafter\n")[0].source == "```\ncode\n\n\nmore\n\n```"


def test_live_preview_appears_and_is_erased() -> None:
    console = make_console()
    r = renderer(console)
    from swebash_py.events import BlockDelta, BlockStart, BlockStop

    r.handle(BlockStart(index=0, kind="text"))
    r.handle(BlockDelta(index=0, kind="text", text="partial **bold"))
    assert "partial" in output(console)  # shown in the live region
    assert "\x1b[2K" not in output(console)  # nothing erased yet
    r.handle(BlockDelta(index=0, kind="text", text="** words\n"))
    r.handle(BlockStop(index=0, kind="text"))
    assert screen_of(output(console)) == screen_of(whole_render("partial **bold** words\n"))


def test_preview_keeps_only_the_last_screenful() -> None:
    from swebash_py.render.markdown_stream import screenful

    fence = "```py\n" + "".join(f"l{i}\n" for i in range(100))
    assert screenful(fence, 3, 1000, True) == "```py\nl97\nl98\nl99\n"
    assert screenful("a\nb\nc", 2, 100, False) == "b\nc"
    assert screenful("short\n", 10, 100, False) == "short\n"
    assert screenful("x" * 50, 5, 10, False) == "x" * 10


def test_streaming_redraws_per_frame_reuses_one_parser_and_renders_blocks_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """20 fps: frames follow the clock, not the chunks; no parser is built while
    streaming; every settled block is rendered exactly once."""
    from markdown_it import MarkdownIt

    from swebash_py.render.live import LiveArea
    from swebash_py.render.md import FastMarkdown

    doc = "\n\n".join(DOCS.values()) * 3
    chunks = chunked(doc, 4)
    counts = {"parsers": 0, "frames": 0}
    rendered: list[object] = []  # kept alive, so no id is reused by a later block
    real_init, real_refresh = MarkdownIt.__init__, LiveArea._refresh
    real_console = FastMarkdown.__rich_console__

    def count_init(self: MarkdownIt, *args: object, **kwargs: object) -> None:
        counts["parsers"] += 1
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    def count_refresh(self: LiveArea) -> None:
        counts["frames"] += 1
        real_refresh(self)

    def count_render(self: FastMarkdown, console: object, options: object) -> object:
        rendered.append(self)
        return real_console(self, console, options)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownIt, "__init__", count_init)
    monkeypatch.setattr(LiveArea, "_refresh", count_refresh)
    monkeypatch.setattr(FastMarkdown, "__rich_console__", count_render)
    settled: list[object] = []  # the renderables themselves: their ids stay unique
    from swebash_py.render.markdown_stream import MarkdownStream

    real_print = MarkdownStream._print

    def keep(self: MarkdownStream, blocks: list) -> None:  # type: ignore[type-arg]
        settled.extend(b.markdown for b in blocks)
        real_print(self, blocks)

    monkeypatch.setattr(MarkdownStream, "_print", keep)
    clock = FakeClock(step=0.001)  # 1 ms per reading: chunks arrive far faster than 20 fps
    console = make_console()
    r = renderer(console, clock=clock)
    from tests.render.helpers import text_events

    for event in text_events(chunks):
        r.handle(event)
    assert counts["parsers"] == 0
    assert counts["frames"] <= clock.now * 20 + 5
    assert counts["frames"] < len(chunks) / 20
    assert settled and [sum(r is m for r in rendered) for m in settled] == [1] * len(settled)
    assert screen_of(output(console)) == screen_of(whole_render(doc))


def test_a_line_printed_mid_answer_comes_after_the_text_before_it() -> None:
    """Blocks settle once per frame; a line printed between frames still lands
    after the answer text that arrived before it."""
    from swebash_py.events import BlockDelta, BlockStart, Notice, TurnComplete

    class Frozen:
        def __call__(self) -> float:
            return 1.0  # no frame is ever due: only forced redraws happen

    console = make_console()
    r = renderer(console, clock=Frozen())
    r.handle(BlockStart(index=0, kind="text"))
    for chunk in chunked("First para.\n\nSecond\nline", 3):
        r.handle(BlockDelta(index=0, kind="text", text=chunk))
    r.handle(Notice("a note"))
    r.handle(TurnComplete(stop_reason="stop"))
    lines = [line.strip() for line in screen_of(output(console)) if line.strip()]
    assert lines.index("First para.") < lines.index("a note") < lines.index("Second line")


IMAGE_DOCS = ["Title\n=====\n\n![an image](u) after\n", "para\n\n![img](u) x\n",
              "---\n\n![img](u) x\n", "- a\n\n![i](u)\n\n> q\n\n![i](u) b\n\n| a |\n|---|\n"
              "| 1 |\n\n![i](u)\n\n##\n\n![i](u)\n", "```\nx\n```\n\n![i](u) *e*\n"]


def _joined_by_lines(doc: str) -> str:
    """The blocks a splitter fed one line at a time settles, printed with their gaps."""
    console = make_console("truecolor")
    splitter = BlockSplitter()
    blocks = [b for line in doc.splitlines(keepends=True) for b in splitter.feed(line)]
    for block in [*blocks, *splitter.finish()]:
        if block.gap_before:
            console.print()
        console.print(block.markdown)
    return _strip_link_ids(output(console))


def test_a_block_that_opens_with_an_image_gets_its_blank_line() -> None:
    """rich draws an image inside a paragraph as it closes, with the blank line
    the block before asked for: settled on its own, that block must keep it."""
    for doc in IMAGE_DOCS:
        assert _joined_by_lines(doc) == _strip_link_ids(whole_render(doc, "truecolor")), doc


def test_counting_closed_elements_would_lose_that_blank_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: the earlier rule (a blank line only when one element closes in the
    block) drops it before the image paragraph, and the comparison sees it."""
    from swebash_py.render import blocks

    def old_rule(tokens: list[object]) -> bool:
        closed = [t for t in blocks._flatten(tokens)  # type: ignore[arg-type]
                  if t.type not in blocks._NOT_ELEMENTS and t.nesting <= 0
                  and not (t.tag in Markdown.inlines and t.type not in ("fence", "code_block"))]
        return len(closed) <= 1

    monkeypatch.setattr(blocks, "_owes_prior_gap", old_rule)
    doc = IMAGE_DOCS[0]
    assert _joined_by_lines(doc) != _strip_link_ids(whole_render(doc, "truecolor"))


def test_code_blocks_are_never_soft_wrapped_or_indented() -> None:
    """At 50 columns a wide line is cut with a marker, never wrapped onto an indented
    line; every other line is exactly the code, so it copies back valid."""
    import io

    from rich.console import Console

    from swebash_py.render.md import CUT_MARK, FastMarkdown

    wide = "    return some_function_with_a_long_name(argument_one, argument_two)"
    code = f"def f():\n{wide}\n\nprint(f())"

    def drawn(width: int) -> list[str]:
        console = Console(file=io.StringIO(), width=width, color_system=None)
        console.print(FastMarkdown(f"Here:\n\n```python\n{code}\n```\n"))
        out = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
        return [line.rstrip() for line in out if line.strip()][1:]

    narrow = drawn(50)
    assert narrow[0] == "def f():" and narrow[-1] == "print(f())"
    assert len(narrow) == 3  # no continuation line
    assert narrow[1].endswith(CUT_MARK) and wide.startswith(narrow[1][:-1])
    assert drawn(100) == ["def f():", wide, "print(f())"]  # the twin: it fits, whole
