"""``direct`` draws simple documents byte for byte as rich's ``Markdown`` does.

Random documents of headings (h1 centred), paragraphs (inline styles, soft
breaks, wrapping), code blocks and lists, alone and with a block only rich's loop draws (quote,
link, rule, nested list), are printed by ``FastMarkdown`` and by
rich's ``Markdown`` on identical consoles over widths and colour systems and
compared. Other cases show the direct path is taken where it may (and only
there) and that the comparison catches a lost blank line.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator

import pytest
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment

from bench.bench_render import answer, code_heavy
from swebash_py.render import direct
from swebash_py.render.md import PARSER, FastMarkdown

WIDTHS = [3, 6, 12, 21, 40, 80]
WORDS = ["a", "word", "longer-word", "**bold**", "*em*", "`code x`", "~~gone~~", "é",
         "漢字", "—", "x" * 18, "**bold *and em***", "`a`b`", "_under_", "\\*"]
# Control, combining and zero-width characters: rich's ``Text`` strips or measures them.
ODD = ["bell\x07", "**\x0bv**", "`\x08`", "ﬁ\u0301", "\u200b"]
FENCES = ["```python\nprint(value_1)\n```", "```sh\ngrep -n 'e' x | head\n```",
          "```json\n{\"a\": [1, 2]}\n```", "```\nplain\n\n  text\n```",
          "```rust\nlet x = f(3)?;\n```", "```python\nif x:\n\treturn 'é' + '漢'\n```",
          "```python\n" + "y" * 90 + "\n```", "    indented code\n    block",
          "```unknown-lang extra info\nx\n```"]
ROUGH = ["> quoted **text**", "| a | b |\n|---|--:|\n| 1 | 2 |", "see [a link](https://e.x)",
         "---", "- outer\n  - inner", "# Title one", "line  \nhard break", "<b>html</b>",
         "1. one\n\n   two paragraphs", "-\n- empty item", "![an image](u) after", "***",
         "<div>\nhtml block\n</div>", "Title\n=====", "Sub title\n---------", "##"]


def _line(rng: random.Random, most: int = 12, odd: float = 0.0) -> str:
    return " ".join(rng.choice(ODD if rng.random() < odd else WORDS)
                    for _ in range(rng.randint(1, most)))


def _block(rng: random.Random, odd: float) -> str:
    kind = rng.choice(["h", "p", "p", "soft", "code", "bullets", "numbers"])
    if kind == "h":
        return "#" * rng.randint(1, 6) + " " + _line(rng, 6, odd)
    if kind == "p":
        return _line(rng, 30, odd)
    if kind == "soft":
        return _line(rng, 4, odd) + "\n" + _line(rng, 4, odd)
    if kind == "code":
        return rng.choice(FENCES)
    count = rng.randint(1, 4)
    if kind == "bullets":
        return "\n".join(f"{rng.choice('-*+')} {_line(rng, 8, odd)}" for _ in range(count))
    start = rng.choice([1, 3, 8, 98])
    return "\n".join(f"{start + k}. {_line(rng, 8, odd)}" for k in range(count))


def documents(count: int, seed: int, rough: float = 0.0, odd: float = 0.05) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        blocks = [_block(rng, odd) for _ in range(rng.randint(1, 6))]
        if rng.random() < rough:
            for _ in range(rng.randint(1, 3)):
                blocks.insert(rng.randrange(len(blocks) + 1), rng.choice(ROUGH))
        yield "\n\n".join(blocks) + rng.choice(["", "\n"])


def _printed(renderable: object, width: int, color_system: str | None = "truecolor") -> str:
    console = Console(file=io.StringIO(), width=width, color_system=color_system,  # type: ignore[arg-type]
                      force_terminal=True, legacy_windows=False)
    console.print(renderable)
    return re.sub(r"\x1b\]8;id=\d+;", "\x1b]8;;", console.file.getvalue())  # type: ignore[attr-defined]


def _same(doc: str, width: int, color_system: str | None = "truecolor") -> bool:
    return _printed(FastMarkdown(doc), width, color_system) == _printed(
        Markdown(doc), width, color_system)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("color_system", [None, "truecolor"])
def test_simple_documents_match_rich_markdown(width: int, color_system: str | None) -> None:
    for doc in documents(80, seed=width):
        assert _same(doc, width, color_system), (doc, width)


@pytest.mark.parametrize("width", [12, 40, 80])
def test_documents_with_other_blocks_match_rich_markdown(width: int) -> None:
    for doc in documents(80, seed=100 + width, rough=1.0):
        assert _same(doc, width), (doc, width)


@pytest.mark.parametrize("make", [answer, code_heavy])
def test_the_bench_answers_match_rich_markdown(make: object) -> None:
    assert callable(make)
    doc = make(6000)
    assert _same(doc, 100)


def test_another_code_theme_and_a_style_match_rich_markdown() -> None:
    for doc in documents(20, seed=7):
        for theme in ("dracula", "solarized-light"):
            assert (_printed(FastMarkdown(doc, code_theme=theme), 60)
                    == _printed(Markdown(doc, code_theme=theme), 60)), doc


def test_simple_decides_by_blocks_and_inline_tokens() -> None:
    yes = ["# h1", "## h", "para **b** *e* `c` ~~s~~\nsoft", "```x\ny\n```", "- a\n- b",
           "3. a\n4. b", "    code", "", "| a |\n|---|\n| 1 |", "| *a* | |\n|--|:-:|\n| `1` |"]
    no = ["> q", "[l](u)", "a  \nb", "---", "- a\n  - b", "| [a](u) |\n|---|\n| 1 |",
          "![i](u)", "<b>x</b>", "-\n- b", "1. a\n\n   b", "##"]
    assert all(direct.simple(PARSER.parse(doc)) for doc in yes)
    assert not any(direct.simple(PARSER.parse(doc)) for doc in no)


def test_the_direct_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most random simple documents skip rich's loop (else the comparisons above
    would compare rich with itself); documents with other blocks do not."""
    calls: list[str] = []
    real = Markdown.__rich_console__

    def counted(self: Markdown, *args: object) -> object:
        calls.append(self.markup)
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Markdown, "__rich_console__", counted)
    for doc in documents(100, seed=3, odd=0.0):
        _printed(FastMarkdown(doc), 12)  # narrow: many items wrap, drawn here too
    assert len(calls) <= 1  # one document with another block (wrapped items: 121 calls)
    calls.clear()
    _printed(FastMarkdown("> quoted"), 80)
    _printed(FastMarkdown("- " + "long " * 30), 80)
    assert calls == ["> quoted"]
    calls.clear()
    calls.clear()  # only the blocks it does not draw go to rich's loop, one by one
    _printed(FastMarkdown("## h\n\n> q\n\npara\n\n---\n\n- a\n\n| [a](u) |\n|---|\n| 1 |\n"), 80)
    assert len(calls) == 3


def test_a_lost_blank_line_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: the comparison fails when the direct path drops the line rich puts
    before a list (or draws one too many before any other block)."""
    doc = "para\n\n- item\n\n## head"
    assert _same(doc, 40)
    real = direct.Direct._list

    def without_gap(self: direct.Direct, token: object, items: object,
                    out: list[Segment]) -> bool:
        done = real(self, token, items, out)  # type: ignore[arg-type]
        out.remove(Segment.line())
        return done

    monkeypatch.setattr(direct.Direct, "_list", without_gap)
    assert not _same(doc, 40)
    monkeypatch.undo()
    monkeypatch.setattr(direct, "_LINE", Segment("\n\n"))
    assert not _same(doc, 40)


def test_a_wrapped_item_s_lines_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: an item that wraps is drawn with the padding rich puts under its mark;
    the comparison fails when its later lines get the mark again, or when it is
    wrapped one column too wide."""
    docs = ["- aa bb cc dd **ee** ff `gg` hh ii jj", "8. one two three four five\n9. x"]
    assert all(_same(doc, 16) for doc in docs)
    real = direct.Direct._item_lines

    def marked_again(self: direct.Direct, inline: object, narrow: object) -> object:
        lines = real(self, inline, narrow)  # type: ignore[arg-type]
        return [lines[0], *([Segment(" • "), *line[1:]] for line in lines[1:])]

    monkeypatch.setattr(direct.Direct, "_item_lines", marked_again)
    assert not _same(docs[0], 16)
    monkeypatch.undo()
    monkeypatch.setattr(direct.Direct, "_item_lines",
                        lambda self, inline, narrow: real(  # one column too wide
                            self, inline, narrow.update(width=narrow.max_width + 1)))
    assert not any(_same(doc, 16) for doc in docs)


@pytest.mark.parametrize("width", [2, 3, 4, 5])
def test_an_item_with_no_room_for_its_text_draws_as_rich_does(width: int) -> None:
    """Narrower than the bullet or number, rich draws no line for an item whose text
    is empty (here: only a control character, stripped); nor does the one-line path."""
    for doc in ["1. `\x08`", "- `\x08`", "99. a\n100. `\x08`", "- \u200b", "- a"]:
        assert _same(doc, width, None), (doc, width)


@pytest.mark.parametrize("width", [1, 2, 7, 8, 40, 41])
@pytest.mark.parametrize("color_system", [None, "truecolor"])
def test_centred_h1_matches_rich_markdown(width: int, color_system: str | None) -> None:
    for doc in ["# a", "# ab", "# **bold** and `code`", "# 漢字 x", "# a `b `", "# `a `",
                "# " + "word " * 12, "# x\n\npara\n\n# y"]:
        assert _same(doc, width, color_system), (doc, width)
        ours, theirs = (Console(file=io.StringIO(), width=width, force_terminal=True,
                                color_system="truecolor", no_color=True) for _ in range(2))
        ours.print(FastMarkdown(doc))
        theirs.print(Markdown(doc))
        assert ours.file.getvalue() == theirs.file.getvalue(), doc  # type: ignore[attr-defined]


def test_an_off_by_one_centring_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: centring the odd column on the other side fails the comparison."""
    assert _same("# ab", 7, None)
    real = direct.one_line_runs

    def shifted(runs: list[tuple[str, object]], width: int, justify: str = "left") -> object:
        line = real(runs, width, justify)  # type: ignore[arg-type]
        if line is None or justify != "center":
            return line
        text = "".join(s.text for s in line[:-1])
        stripped = text.lstrip(" ")
        pad = len(text) - len(stripped)
        return [Segment(" " * (pad + 1) + stripped[:-1]), line[-1]]

    monkeypatch.setattr(direct, "one_line_runs", shifted)
    assert not _same("# ab", 7, None)
