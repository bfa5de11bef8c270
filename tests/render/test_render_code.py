"""``CodeView`` draws a code block byte for byte as rich's ``Syntax`` does.

Each case prints ``CodeView(code, lexer, theme)`` and ``Syntax(code, name,
theme=..., word_wrap=True, padding=1)`` (what rich's Markdown ``CodeBlock``
yields) on identical consoles and compares the bytes; other cases compare
``FastMarkdown`` with rich's ``Markdown`` on whole documents. A twin shows the
comparison notices a change of segmentation alone (same text, same colours).
"""

from __future__ import annotations

import io
import random

import pytest
from pygments.styles import get_all_styles
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment
from rich.syntax import Syntax

from swebash_py.render.code import CodeView
from swebash_py.render.md import FastMarkdown, lexer, theme
from tests.render.helpers import mismatches_in_fresh_process

SAMPLES = {
    "python": 'def f(x):\n    """Doc\n    string."""\n\n    return  x + 1  # hi\n'
              "class A(B):\n    pass   \nprint(f'{x!r}', *args)",
    "sh": "grep -n 'error 3' build.log | head\nfor f in *.py; do\n  echo \"$f\"\ndone",
    "bash": "export A=1 && ls -la ~/x 2>/dev/null || true",
    "json": '{\n  "step": 3,\n  "ok": true,\n  "list": [1, 2.5, null]\n}',
    "rust": "fn main() -> Result<(), E> {\n    let x3 = f(3)?;\n    Ok(())\n}",
    "javascript": "const a = `t ${b}`;\n// c\nfunction g() { return /re+/g; }",
    "go": "package main\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}",
    "c": "#include <stdio.h>\nint main(void) { /* c\n  more */ return 0; }",
    "yaml": "a: 1\nb:\n  - x\n  - 'y'",
    "diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new",
    "sql": "SELECT a, count(*) FROM t WHERE b = 'x' GROUP BY a;",
    "text": "just text\n\n   indented",
    "nonesuch": "an unknown language: the text lexer",
}
THEMES = sorted(get_all_styles())


def _console(width: int, color_system: str | None = "truecolor") -> Console:
    return Console(file=io.StringIO(), width=width, color_system=color_system,  # type: ignore[arg-type]
                   force_terminal=True, legacy_windows=False)


def _printed(renderable: object, width: int, color_system: str | None = "truecolor") -> str:
    console = _console(width, color_system)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def _pair(code: str, language: str, theme_name: str, width: int,
          color_system: str | None = "truecolor") -> tuple[str, str]:
    ours = CodeView(code, lexer(language), theme(theme_name))
    rich = Syntax(code, language, theme=theme_name, word_wrap=True, padding=1)
    return _printed(ours, width, color_system), _printed(rich, width, color_system)


def _fast(code: str, language: str = "python", width: int = 80) -> bool:
    """True when ``CodeView`` builds the segments itself (not by way of ``Syntax``)."""
    view = CodeView(code, lexer(language), theme("monokai"))
    return view.segments(_console(width).options) is not None


@pytest.mark.parametrize("theme_name", THEMES)
def test_every_theme_and_language_matches_syntax(theme_name: str) -> None:
    for language, code in SAMPLES.items():
        ours, rich = _pair(code, language, theme_name, 60)
        assert ours == rich, (theme_name, language)


def mismatches(color_system: str | None) -> list[str]:
    """The cases where ``CodeView`` and ``Syntax`` print differently, over widths."""
    return [f"{language} {theme_name} {width}"
            for width in (12, 20, 41, 80, 100)
            for language, code in SAMPLES.items()
            for theme_name in ("monokai", "solarized-light", "bw")
            if len(set(_pair(code, language, theme_name, width, color_system))) > 1]


@pytest.mark.parametrize("color_system", [None, "truecolor"])
def test_widths_match_syntax(color_system: str | None) -> None:
    assert mismatches(color_system) == []


@pytest.mark.parametrize("color_system", ["standard", "256"])
def test_downgraded_colours_match_syntax_in_a_fresh_process(color_system: str) -> None:
    assert mismatches_in_fresh_process("tests.render.test_render_code", color_system) == []


def test_the_samples_take_the_fast_path() -> None:
    # Otherwise the comparisons above would only compare Syntax with itself.
    assert all(_fast(code, language) for language, code in SAMPLES.items())


EDGES = {
    "exactly the width": "x" * 78,
    "one past the width": "x" * 79,
    "a long line among short": "a = 1\n" + "b = '" + "y" * 120 + "'\nc = 3",
    "tabs": "if x:\n\tif y:\n\t\treturn\t1  # t",
    "unicode": "print('héllo wörld')",
    "wide characters": "s = '漢字テキスト'",
    "trailing spaces": "x = 1     \ny = 2\t\t",
    "blank lines": "\n\na = 1\n\n\nb = 2",
    "only spaces": "     ",
    "empty": "",
    "a control character": "a = 1\x07\nb = 2\r",
    "one character": "x",
    "a final newline": "x = 1\n",  # CodeBlock strips it; Syntax keeps a blank line
}


@pytest.mark.parametrize("name", list(EDGES))
def test_edge_cases_match_syntax(name: str) -> None:
    code = EDGES[name]
    for language in ("python", "text", "sh"):
        for width in (20, 80):
            ours, rich = _pair(code, language, "monokai", width)
            assert ours == rich, (name, language, width)


def test_what_only_syntax_knows_is_left_to_syntax() -> None:
    assert _fast(EDGES["exactly the width"])
    assert _fast(EDGES["tabs"])  # expanded to 4 columns first, as Syntax does
    for name in ("one past the width", "a long line among short", "unicode",
                 "wide characters", "empty", "a control character", "a final newline"):
        assert not _fast(EDGES[name]), name
    view = CodeView("x = 1", lexer("python"), theme("monokai"))
    assert view.segments(_console(80).options.update(height=5)) is None


def test_random_code_matches_syntax() -> None:
    rng = random.Random(17)
    alphabet = "abc xyz_019 \t\n\n'\"#/*(){}[]<>=+-.,:;$`\\é"
    languages = ["python", "sh", "json", "c", "rust", "text", "yaml"]
    for _ in range(150):
        code = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90))).rstrip()
        language = rng.choice(languages)
        width = rng.choice([10, 24, 40, 80])
        ours, rich = _pair(code, language, "monokai", width)
        assert ours == rich, (code, language, width)


def test_a_change_of_segmentation_alone_is_caught() -> None:
    """Twin: the same characters and colours, with the padding run split in two,
    print different bytes, so the comparisons above see segmentation too."""
    code, options = "x = 1", _console(40).options
    segments = CodeView(code, lexer("python"), theme("monokai")).segments(options)
    assert segments is not None
    pad = max(i for i, s in enumerate(segments) if s.text.endswith("  ") and "\n" not in s.text)
    text, style, _ = segments[pad]
    broken = [*segments[:pad], Segment(text[:1], style), Segment(text[1:], style),
              *segments[pad + 1:]]

    class Broken:
        def __rich_console__(self, console: object, options: object) -> list[Segment]:
            return broken

    rich = _printed(Syntax(code, "python", theme="monokai", word_wrap=True, padding=1), 40)
    assert _pair(code, "python", "monokai", 40)[0] == rich
    assert _printed(Broken(), 40) != rich


DOCUMENTS = {
    "fences": "Intro.\n\n```python\ndef f():\n    return 1\n```\n\n```\nno language\n```\n",
    "in a list": "- item\n\n  ```sh\n  ls -la\n  ```\n- two\n  1. nested\n\n     ```json\n"
                 '     {"a": 1}\n     ```\n',
    "in a quote": "> quoted\n>\n> ```rust\n> let x = 1;\n> ```\n",
    "indented code": "Text.\n\n    indented code\n    block\n\nAfter.\n",
    "info string": "```python title=x.py\nprint(1)\n```\n",
    "long lines": "```python\n" + "x = '" + "z" * 150 + "'\n```\n",
}


@pytest.mark.parametrize("name", list(DOCUMENTS))
@pytest.mark.parametrize("color_system", [None, "truecolor"])
def test_fast_markdown_matches_rich_markdown(name: str, color_system: str | None) -> None:
    text = DOCUMENTS[name]
    for width in (30, 80):
        assert (_printed(FastMarkdown(text), width, color_system)
                == _printed(Markdown(text), width, color_system)), (name, width)


def test_fast_markdown_matches_rich_markdown_with_another_code_theme() -> None:
    text = DOCUMENTS["fences"] + DOCUMENTS["in a list"]
    for name in ("dracula", "solarized-light"):
        assert (_printed(FastMarkdown(text, code_theme=name), 80)
                == _printed(Markdown(text, code_theme=name), 80))


def _one_line_documents() -> list[str]:
    rng = random.Random(5)
    words = ["a", "word", "longer-word", "**bold**", "*em*", "`code x`", "~~gone~~",
             "[link](https://e.x/y)", "é", "漢字", "—", "x" * 30, "<kbd>K</kbd>"]
    docs = []
    for _ in range(60):
        line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 14)))
        head = "#" * rng.randint(1, 6)
        items = "".join(f"{n}. {line}\n" for n in range(8, 8 + rng.randint(1, 4)))
        docs.append(f"{head} {line}\n\n{line}\n\n- {line}\n- {line}\n\n{items}\n"
                    f"* loose {line}\n\n* two paragraphs\n\n  {line}\n\n"
                    f"- outer\n  - {line}\n\n"
                    f"> {line}\n\n{line}  \nhard break\n\nsoft\nbreak {line}\n")
    return docs


@pytest.mark.parametrize("width", [20, 39, 40, 41, 80])
def test_one_line_texts_match_rich_markdown(width: int) -> None:
    """Headings, paragraphs and list items (bullets, numbers up to two digits,
    loose, nested) that fit on a line skip Text.wrap and render_lines; the widths
    straddle where the texts start to wrap."""
    for doc in _one_line_documents():
        ours = _strip_link_ids(_printed(FastMarkdown(doc), width))
        assert ours == _strip_link_ids(_printed(Markdown(doc), width)), (doc, width)


def test_one_line_takes_the_fast_path_only_where_it_may() -> None:
    from rich.text import Text

    from swebash_py.render.oneline import one_line

    console = _console(20)
    options = console.options
    assert one_line(console, options, Text("fits", justify="left")) is not None
    assert one_line(console, options, Text("x" * 20, justify="left")) is not None
    for text in (Text("x" * 21, justify="left"), Text("漢" * 11, justify="left"),
                 Text("a\nb", justify="left"), Text("a\tb", justify="left"),
                 Text("centred", justify="center"), Text("ignore", justify="left",
                                                          overflow="ignore")):
        assert one_line(console, options, text) is None, text


def _random_texts(count: int) -> list[object]:
    """Left-justified texts with a style or none, overlapping spans (names, ``Style``
    objects, links), wide characters: what ``one_line`` may be handed."""
    from rich.style import Style
    from rich.text import Text

    rng = random.Random(23)
    styles: list[str | Style] = ["bold", "red on blue", "markdown.code", "italic underline",
                                 Style(link="https://e.x"), Style(color="green"), ""]
    texts: list[object] = []
    for _ in range(count):
        plain = "".join(rng.choice(["ab", " ", "é", "漢", "—", "x" * 7]) for _ in range(
            rng.randint(0, 12)))
        text = Text(plain, style=rng.choice(styles), justify="left",
                    end=rng.choice(["\n", "", "\n\n"]))
        for _ in range(rng.randint(0, 4)):
            start = rng.randint(0, len(plain))
            text.stylize(rng.choice(styles), start, rng.randint(start, len(plain) + 2))
        texts.append(text)
    return texts


@pytest.mark.parametrize("width", [8, 20, 40])
def test_one_line_renders_as_rich_renders_the_text(width: int) -> None:
    """``one_line`` builds the padded, joined text itself (no copy, truncate, join):
    its segments equal ``console.render(text)``'s, style for style."""
    from rich.text import Text

    from swebash_py.render.oneline import one_line

    console = _console(width)
    options = console.options
    fast = 0
    for text in _random_texts(300):
        assert isinstance(text, Text)
        ours = one_line(console, options, text)
        if ours is None:
            continue
        fast += 1
        assert list(ours) == list(console.render(text, options)), (text, text.spans)
    assert fast > 100  # the fast path was taken, not only refused


def test_one_line_comparison_notices_a_lost_span() -> None:
    """Twin: the segment comparison above fails when a span's style is dropped."""
    from rich.text import Text

    from swebash_py.render.oneline import one_line

    console = _console(20)
    text = Text("ab cd", justify="left")
    text.stylize("bold", 0, 2)
    plain = text.copy()
    plain.spans = []
    ours = one_line(console, console.options, plain)
    assert ours is not None
    assert list(ours) != list(console.render(text, console.options))


def _strip_link_ids(text: str) -> str:
    import re

    return re.sub(r"\x1b\]8;id=\d+;", "\x1b]8;;", text)


def test_list_items_of_one_line_skip_rich_s_item_rendering(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.markdown import ListItem

    calls: list[str] = []
    real_bullet, real_number = ListItem.render_bullet, ListItem.render_number

    def bullet(self: ListItem, *args: object) -> object:
        calls.append("bullet")
        return real_bullet(self, *args)  # type: ignore[arg-type]

    def number(self: ListItem, *args: object) -> object:
        calls.append("number")
        return real_number(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ListItem, "render_bullet", bullet)
    monkeypatch.setattr(ListItem, "render_number", number)
    _printed(FastMarkdown("- one\n- two\n\n1. three\n2. four\n"), 40)
    assert calls == []
    _printed(FastMarkdown("- " + "long " * 20 + "\n"), 40)  # wraps: drawn here too
    assert calls == []
    # Twin: an item holding two paragraphs goes to rich's code.
    _printed(FastMarkdown("- a\n\n  b\n\n1. a\n\n   b\n"), 40)
    assert calls == ["bullet", "number"]


def test_completing_block_tokens_equals_one_whole_parse() -> None:
    """``complete`` (inline text without syntax characters made one text token,
    the rest through markdown-it's inline pass) gives ``PARSER.parse``'s tokens."""
    from swebash_py.render.md import BLOCK_PARSER, PARSER, complete

    rng = random.Random(11)
    pieces = ["word", "two words", " ", "\n", "\n\n", "# ", "- ", "1. ", "> ", "**", "*",
              "_", "`", "[a](b)", "<x>", "&amp;", "\\*", "~~", "|", "---", "é", ":", "!",
              "Step 3", "```\ncode\n```\n", "    indented\n", "a  \nb"]
    plain = 0
    for _ in range(300):
        doc = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 25)))
        env: dict[str, object] = {}
        ours = complete(BLOCK_PARSER.parse(doc, env), env)
        assert ours == PARSER.parse(doc), doc
        plain += sum(1 for t in ours if t.type == "inline" and t.children
                     and len(t.children) == 1 and t.children[0].type == "text")
    assert plain > 50  # the shortcut was taken, not only the full pass
