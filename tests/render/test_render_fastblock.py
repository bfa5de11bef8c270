"""``fastblock.parse`` gives exactly markdown-it's block tokens, or None.

Random documents (lines drawn from one alphabet close to the accepted shapes
and one rich in every block syntax) are compared field for field with
``BLOCK_PARSER``'s tokens whenever ``parse`` accepts them; the code-heavy bench
and generated bench answers are accepted whole (the code-heavy one at every
line-boundary prefix). Shapes where
CommonMark could decide otherwise are refused, twins show the comparison
catches a wrong map and a wrong tight/loose flag, and the splitter settles the
same blocks with or without the fast path.
"""

from __future__ import annotations

import dataclasses
import io
import random
import subprocess
import sys

import pytest
from markdown_it.token import Token
from rich.console import Console

from bench.bench_render import answer, code_heavy
from swebash_py.render import fastblock
from swebash_py.render.blocks import BlockSplitter
from swebash_py.render.md import BLOCK_PARSER, PARSER, TERMINATORS, parse
from swebash_py.render.tokens import Tok, real

NEAR = ["", "", "## Step 1", "# Title", "###### six", "Run **line 2** of the `log`.",
        "plain words", "2024 was a year", "`code` first", "**bold** first", "```python",
        "```", "```sh", "print(x)", "    indented code", "- first point", "- second",
        "- `x` item", "- **b** item", "Ünïcode line", "a line with # in it",
        "| name | value |", "|---|---:|", "| fox | 12 |", "|:---|:---:|", "| a b | c. |",
        "| one |", "|---|", '{"step": 3, "ok": true}', "(aside)", "'quoted'", '"q"',
        "read **line 4"]
WILD = [*NEAR, " lead", "trail ", "\t", "* star", "+ plus", "1. one", "2) two", "> quote",
        "| a | b |", "|---|---|", "---", "===", "***", "<div>", "[r]: /url",
        "  - nested", "````", " ```", "~~~", "```a b", "#nospace", "# ends #",
        "-", "- ", "1.5 ratio", "12) x", "\\", "&amp;", "-- dash", "#", "``x``",
        "- - x", "- 1. x", "text\u00a0", "\u2003lead", "| a|b |", "| `x` | y |",
        "|  a | b |", "| a | |", "|--|--|", "| --- | --- |", "| a \\| b |", "|a|b|"]


def _doc(rng: random.Random, alphabet: list[str]) -> str:
    lines = [rng.choice(alphabet) for _ in range(rng.randint(1, 12))]
    return "\n".join(lines) + rng.choice(["\n", "", "\n\n", " ", "  "])


def _same(ours: list[Token], text: str) -> None:
    theirs = BLOCK_PARSER.parse(text, {})
    assert [t.as_dict() for t in ours] == [t.as_dict() for t in theirs], repr(text)


def _compare(alphabet: list[str], seed: int, count: int) -> int:
    rng = random.Random(seed)
    accepted = 0
    for _ in range(count):
        text = _doc(rng, alphabet)
        ours = fastblock.parse(text)
        if ours is None:
            continue
        accepted += 1
        _same(ours, text)
    return accepted


@pytest.mark.parametrize("seed", range(4))
def test_random_documents_give_markdown_it_s_tokens(seed: int) -> None:
    assert _compare(NEAR, seed, 3000) > 300
    assert _compare(WILD, seed, 3000) > 30


def test_the_code_heavy_answer_is_accepted_at_every_line_prefix() -> None:
    text = code_heavy(20_000)
    lines = text.split("\n")
    for end in range(0, len(lines), 3):
        prefix = "\n".join(lines[:end]) + "\n"
        ours = fastblock.parse(prefix)
        assert ours is not None, repr(prefix[-80:])
        _same(ours, prefix)
    whole = fastblock.parse(code_heavy(80_000))
    assert whole is not None
    _same(whole, code_heavy(80_000))


@pytest.mark.parametrize("size", [20_000, 80_000])
def test_the_generated_answer_is_accepted_whole(size: int) -> None:
    ours = fastblock.parse(answer(size))
    assert ours is not None
    _same(ours, answer(size))
    assert {"table_open", "bullet_list_open", "fence", "heading_open"} <= {t.type for t in ours}
    assert not all(t.hidden for t in ours if t.type == "paragraph_open")  # loose lists too


@pytest.mark.parametrize("text", [
    "- a\nlazy\n", "- a\n  b\n", "* a\n", "+ a\n", "1. a\n", "a\n===\n",
    "a\n---\n", "a\n- b\n", "a\n```\nx\n```\n", "> q\n", "| a |\n|---|\n", "<div>\n",
    "[r]: /u\n", "    code\n", "```\nx\n````\n", "```\nx\n ```\n", "``` py\n```\n",
    "# a #\n", "#a\n", "| a |\n|---|\n", "| a | b |\n|---|\n| 1 | 2 |\n",
    "| a |\n|---|\n| 1 | 2 |\n", "| a |\n|---|\n| 1 |\nlazy\n",
    "a\n| b |\n|---|\n| 1 |\n", "a \n", " a\n", "a\tb\n", "a\rb\n", "a\0\n", "1) a\n", "- \n",
    "- # h\n", "a\n\u2003\n", "a\n   ", "```\nx\n ", "~~~\nx\n~~~\n", "***\n", "- a\n- 2. b\n"])
def test_shapes_commonmark_could_read_otherwise_are_refused(text: str) -> None:
    assert fastblock.parse(text) is None


@pytest.mark.parametrize("text", [
    "", "\n\n", "## Step 1\n", "Para one\nline two\n", "```python\nprint(1)\n```\n",
    "```rust\nlet x\n", "```\n", "- a\n- b\n", "- a\n- b\n\n\nText\n", "- a\n\n## h\n",
    "# h\n```sh\nls\n```\n- x\n", "```\n\n  spaced\n\n```\nafter\n", "x\n\n- a",
    "- a\n\n- b\n", "- a\n- b\n\n\n- c\n\nx\n", "| a | b |\n|---|:---:|\n| 1 | 2 |\n",
    "# h\n| a |\n|:---|\n| 1 |\n\n| b |\n|---:|\n| 2 |", "a line still arriving ",
    "```\nx  ", "## h  ", "- a "])
def test_common_shapes_are_accepted_and_equal(text: str) -> None:
    ours = fastblock.parse(text)
    assert ours is not None
    _same(ours, text)


def test_a_wrong_last_item_map_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: the last item of a list spans the empty lines after it; ending it at
    its own line (as the others) makes the comparison fail."""
    real = fastblock.parse

    def short_items(text: str) -> list[Token] | None:
        tokens = real(text)
        for token in tokens or []:
            if token.type == "list_item_open" and token.map:
                token.map = [token.map[0], token.map[0] + 1]
        return tokens

    assert _compare(NEAR, 0, 3000) > 300
    monkeypatch.setattr(fastblock, "parse", short_items)
    with pytest.raises(AssertionError):
        _compare(NEAR, 0, 3000)


def test_a_wrong_tight_flag_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: a tight list hides its paragraphs; showing them (a loose list) fails."""
    real = fastblock.parse

    def loose(text: str) -> list[Token] | None:
        tokens = real(text)
        for token in tokens or []:
            token.hidden = False
        return tokens

    monkeypatch.setattr(fastblock, "parse", loose)
    with pytest.raises(AssertionError):
        _compare(NEAR, 0, 3000)


def _settled(text: str, chunk: int) -> list[tuple[str, bool, list[dict[str, object]]]]:
    splitter = BlockSplitter()
    blocks = []
    for start in range(0, len(text), chunk):
        blocks += splitter.feed(text[start:start + chunk])
    blocks += splitter.finish()
    return [(b.source, b.gap_before, [t.as_dict() for t in b.markdown.parsed]) for b in blocks]


@pytest.mark.parametrize("make", [answer, code_heavy])
def test_the_splitter_settles_the_same_blocks_without_the_fast_path(
        make: object, monkeypatch: pytest.MonkeyPatch) -> None:
    assert callable(make)
    text = make(12_000)
    fast = _settled(text, 37)
    monkeypatch.setattr(fastblock, "parse", lambda text: None)
    slow = _settled(text, 37)
    assert fast == slow and len(fast) > 3


@pytest.mark.parametrize("make", [answer, code_heavy])
def test_parse_of_whole_documents_equals_markdown_it(make: object) -> None:
    assert callable(make)
    for size in (3_000, 20_000):
        text = make(size)
        assert [t.as_dict() for t in parse(text)] == [t.as_dict() for t in PARSER.parse(text)]
    assert fastblock.parse(code_heavy(3_000)) is not None  # the fast path was taken


def test_the_terminators_are_markdown_it_s() -> None:
    theirs = PARSER.inline.terminator_re
    differ = [c for c in map(chr, range(0x3000))
              if (TERMINATORS.match(c) is None) != (theirs.match(c) is None)]
    assert differ == []


def test_tok_has_token_s_fields_and_defaults() -> None:
    assert sorted(Tok.__slots__) == sorted(f.name for f in dataclasses.fields(Token))
    made = Tok("inline", "", 0, map=[1, 2], level=1, content="x", children=[Tok("text", "", 0)])
    theirs = Token("inline", "", 0, map=[1, 2], level=1, content="x",
                   children=[Token("text", "", 0)])
    assert real([made]) == [theirs] and made.as_dict() == theirs.as_dict()
    assert type(real([made])[0].children[0]) is Token  # type: ignore[index]


def _rendered(text: str) -> str:
    console = Console(file=io.StringIO(), force_terminal=True, width=80,
                      color_system="truecolor")
    splitter = BlockSplitter()
    blocks = []
    for start in range(0, len(text), 5):
        blocks += splitter.feed(text[start:start + 5])
    for block in blocks + splitter.finish():
        console.print(block.markdown)
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


@pytest.mark.parametrize("make", [answer, code_heavy])
def test_the_answers_render_to_the_same_bytes_without_the_fast_path(
        make: object, monkeypatch: pytest.MonkeyPatch) -> None:
    assert callable(make)
    text = make(6_000)
    fast = _rendered(text)
    monkeypatch.setattr(fastblock, "parse", lambda text: None)
    assert _rendered(text) == fast and "\x1b[" in fast


_RUN = """
import io, sys
from rich.console import Console
from swebash_py.render.blocks import BlockSplitter
text = sys.stdin.read()
console = Console(file=io.StringIO(), force_terminal=True, width=80)
splitter = BlockSplitter()
blocks = splitter.feed(text) + splitter.finish()
for block in blocks:
    console.print(block.markdown)
print("markdown_it" in sys.modules, len(blocks))
"""


@pytest.mark.parametrize(("extra", "imported"), [
    ("", False), ("\n| a |\n|---|\n| 1 |\n", False), ("\n> a quote\n", True),
    ("\nA [link](u).\n", True)])
def test_the_code_heavy_answer_renders_without_importing_markdown_it(
        extra: str, imported: bool) -> None:
    """Its blocks (and a table) are all made by ``fastblock`` and ``inline``; twins:
    a quote, a link (markdown-it's block and inline passes) do import it."""
    text = code_heavy(3_000).rsplit("## ", 1)[0]  # not cut in the middle of a ``**``
    run = subprocess.run([sys.executable, "-c", _RUN], input=text + extra,
                         capture_output=True, text=True, check=True)
    assert run.stdout.split()[0] == str(imported)
