"""``inline.children`` gives exactly markdown-it's inline tokens, or None.

Random strings (one alphabet rich in every special character, one close to the
accepted shape) are compared field for field with markdown-it's tokens whenever
``children`` accepts them; the bench answers' styled lines are all accepted and
whole documents completed this way equal one whole parse. Cases where CommonMark
would decide otherwise are refused, and a twin shows the comparison catches the
empty text tokens a ``**`` leaves behind.
"""

from __future__ import annotations

import random

import pytest
from markdown_it.token import Token

from bench.bench_render import answer, code_heavy
from swebash_py.render import inline
from swebash_py.render.md import BLOCK_PARSER, PARSER, complete

WILD = ["word", "a", "Z9", " ", " ", "**", "*", "`", "`x`", "`a b`", "` a`", "``", ".", ",",
        ")", "(", ":", "?", "!", "-", "_", "é", "漢", "\\", "&amp;", "<b>", "[x](u)", "~~",
        "#", "]", "'", '"', "\t", "x**y", "1", "\n"]
NEAR = ["word", "a", "Z9", " ", " ", "**", "`x`", "`a b`", "`f()`", "`\\n`", "`<b>`", "`*`",
        ".", ",", ")", "(", ":", "?", "-", "é", "#", "]", "'", "1", "\t", "**x**", "x**",
        "**b** ", " **c**", "`**`"]


def _theirs(content: str) -> list[Token] | None:
    """markdown-it's children for ``content`` as one paragraph (None when it is not)."""
    tokens = PARSER.parse(content)
    if len(tokens) != 3 or tokens[0].type != "paragraph_open" or tokens[1].content != content:
        return None
    return tokens[1].children


def _compare(alphabet: list[str], seed: int, count: int) -> int:
    rng = random.Random(seed)
    accepted = 0
    for _ in range(count):
        content = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))).strip()
        ours = inline.children(content)
        theirs = _theirs(content)
        if ours is None or theirs is None:
            continue
        accepted += 1
        assert [t.as_dict() for t in ours] == [t.as_dict() for t in theirs], repr(content)
    return accepted


@pytest.mark.parametrize("seed", range(4))
def test_random_strings_give_markdown_it_s_tokens(seed: int) -> None:
    assert _compare(WILD, seed, 4000) > 100
    assert _compare(NEAR, seed, 4000) > 1000


@pytest.mark.parametrize("content", [
    "a**b**c", "**a**b", "**a** b**", "** a**", "***a***", "**a*", "``a``",
    "` a `", "`a``b`", "**`x`**", "\\*a", "a\nb", "a_b", "~~a~~", "[a](u)", "&amp;",
    "<b>", "!x", "`a", "x **a **b", "a **b**c", "**a**_"])
def test_shapes_commonmark_could_read_otherwise_are_refused(content: str) -> None:
    assert inline.children(content) is None


@pytest.mark.parametrize("content", [
    "Run the check, then read **line 5** of the `log`.", "**bold** start", "end **bold**",
    "`code` only", "a `b` **c** `d` e", "**two words** and **more**.", "x **y**) z",
    "**a**: b", "`a**b`", "", "plain text", "**a", "read **line 4", "a **b** c **d",
    "read **line `x` y", "quick *", "a **b** **", "a `b` `", "a **b *", "**a **", "**a** **"])
def test_common_shapes_are_accepted_and_equal(content: str) -> None:
    ours = inline.children(content)
    theirs = _theirs(content) if content else []
    assert ours is not None and theirs is not None
    assert [t.as_dict() for t in ours] == [t.as_dict() for t in theirs]


@pytest.mark.parametrize("make", [answer, code_heavy])
def test_the_bench_answers_are_accepted_and_complete_as_one_parse(make: object) -> None:
    assert callable(make)
    text = make(20_000)
    whole = PARSER.parse(text)
    lines = [t.content for t in whole if t.type == "inline"]
    assert all(inline.children(line) is not None for line in lines)
    env: dict[str, object] = {}
    completed = complete(BLOCK_PARSER.parse(text, env), env)
    assert [t.as_dict() for t in completed] == [t.as_dict() for t in whole]


def test_a_lost_empty_text_token_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: markdown-it leaves an empty text token outside a ``**`` with no text
    next to it; dropping those makes the comparison fail."""
    real = inline.children

    def dropping(content: str) -> list[Token] | None:
        made = real(content)
        return None if made is None else [t for t in made if t.type != "text" or t.content]

    assert [t.content for t in real("**a**") or []] == ["", "", "a", "", ""]
    monkeypatch.setattr(inline, "children", dropping)
    with pytest.raises(AssertionError):
        _compare(NEAR, 0, 4000)


def test_a_wrong_level_after_an_unclosed_opener_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: code after a ``**`` left open is outside any strong span (level 0);
    giving it the level of the span it never entered makes the comparison fail."""
    real = inline.children

    def inside(content: str, literal: int = -1) -> list[Token] | None:
        made = real(content, literal)
        if made is not None and content.count("**") % 2:
            for token in made:
                if token.type == "code_inline":
                    token.level = 1
        return made

    monkeypatch.setattr(inline, "children", inside)
    with pytest.raises(AssertionError):
        _compare(NEAR, 0, 4000)
