"""``table`` draws Markdown tables byte for byte as rich's ``Markdown`` (``Table``) does.

Random tables (alignments, empty cells, inline styles, wide and odd characters,
header-only, ragged rows, too wide for the console) are printed by ``FastMarkdown``
and by rich's ``Markdown`` on identical consoles over widths (narrow ones too),
colour systems (the downgraded ones each in a fresh process: rich caches a
style's codes), NO_COLOR, themes and an ASCII-only console, and compared. Other cases show
the direct path is taken where it may, and that the comparison catches a
dropped header style or a wrong justification.
"""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table
from rich.theme import Theme

from swebash_py.render import direct, table
from swebash_py.render.md import FastMarkdown
from tests.render.helpers import mismatches_in_fresh_process

CELLS = ["a", "name", "value", "12", "999", "**bold**", "*em*", "`code`", "~~gone~~",
         "**b** and *e*", "é", "漢字", "x" * 14, "two words", "", "`a b `", "\\|",
         "bell\x07", "tab\there", "***both***", "`` ` ``", " spaced  "]
ALIGN = ["---", ":--", ":-:", "--:"]


def _table(rng: random.Random) -> str:
    columns = rng.randint(1, 4)
    rows = rng.choice([0, 1, 2, 4, 6])

    def row(count: int) -> str:
        return "| " + " | ".join(rng.choice(CELLS) for _ in range(count)) + " |"

    lines = [row(columns), "|" + "|".join(rng.choice(ALIGN) for _ in range(columns)) + "|"]
    lines += [row(columns if rng.random() < 0.9 else rng.randint(1, columns + 1))
              for _ in range(rows)]
    return "\n".join(lines)


def documents(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    docs = []
    for _ in range(count):
        parts = [_table(rng) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.5:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(
                ["para", "## head", "- item", "```\ncode\n```", "> quote", "# h1"]))
        docs.append("\n\n".join(parts))
    return docs


def _console(width: int, color_system: str | None, **options: object) -> Console:
    options.setdefault("file", io.StringIO())
    return Console(width=width, color_system=color_system,  # type: ignore[arg-type]
                   force_terminal=True, legacy_windows=False, **options)  # type: ignore[arg-type]


def _printed(renderable: object, width: int, color_system: str | None = "truecolor",
             **options: object) -> str:
    console = _console(width, color_system, **options)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def _same(doc: str, width: int, color_system: str | None = "truecolor", **options: object) -> bool:
    file = options.pop("file", None)
    twin = type(file)() if file is not None else None
    return (_printed(FastMarkdown(doc), width, color_system, file=file or io.StringIO(), **options)
            == _printed(Markdown(doc), width, color_system, file=twin or io.StringIO(), **options))


WIDTHS = [1, 4, 9, 16, 30, 80]


def mismatches(color_system: str | None) -> list[str]:
    """The random documents ``FastMarkdown`` and ``Markdown`` print differently."""
    return [doc for width in WIDTHS for doc in documents(60, seed=width)
            if not _same(doc, width, color_system)]


@pytest.mark.parametrize("color_system", [None, "truecolor"])
def test_random_tables_match_rich_markdown(color_system: str | None) -> None:
    assert mismatches(color_system) == []


@pytest.mark.parametrize("color_system", ["standard", "256"])
def test_downgraded_colours_match_rich_markdown_in_a_fresh_process(color_system: str) -> None:
    assert mismatches_in_fresh_process("tests.render.test_render_table", color_system) == []


def test_a_theme_no_color_an_ascii_console_and_safe_boxes_match_rich_markdown() -> None:
    theme = Theme({"markdown.table.border": "red on blue", "markdown.table.header": "italic",
                   "table.header": "underline green", "markdown.strong": "reverse"})
    for doc in documents(40, seed=11):
        assert _same(doc, 40, theme=theme), doc
        assert _same(doc, 40, safe_box=False), doc
        assert _same(doc, 40, no_color=True), doc  # NO_COLOR: bold and the like stay
        assert _same(doc, 40, file=_AsciiFile()), doc


class _AsciiFile(io.StringIO):
    """A file whose encoding makes rich substitute ASCII boxes."""

    encoding = "ascii"  # type: ignore[assignment]


def test_the_bench_table_matches_and_is_drawn_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most random tables skip rich's ``Table`` (else the comparisons above would
    compare rich with itself); those that do not fit or hold a tab do not."""
    calls: list[int] = []
    real = Table.__rich_console__

    def counted(self: Table, *args: object) -> object:
        calls.append(1)
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Table, "__rich_console__", counted)
    _printed(FastMarkdown("| name | value |\n|---|---:|\n| fox | 12 |\n| **dog** | 999 |"), 100)
    assert not calls
    docs = documents(100, seed=5)
    for doc in docs:
        _printed(FastMarkdown(doc), 80)
    assert len(calls) < sum(doc.count("|\n|") for doc in docs) // 2
    calls.clear()
    _printed(FastMarkdown("| a\tb |\n|---|\n| 1 |"), 80)
    _printed(FastMarkdown("| " + "word " * 30 + "|\n|---|\n| 1 |"), 80)
    assert len(calls) == 2


def test_a_dropped_header_style_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: the comparison fails when the header loses ``markdown.table.header``."""
    doc = "| name | value |\n|---|---:|\n| fox | 12 |"
    assert _same(doc, 40)
    monkeypatch.setattr(table, "HEADER", "none")
    assert not _same(doc, 40)


def test_a_wrong_justification_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twin: the comparison fails when a right-aligned column is drawn as the default."""
    doc = "| name | value |\n|---|---:|\n| fox | 12 |"
    assert _same(doc, 40)
    monkeypatch.setattr(direct, "justify_of", lambda token: "default")
    assert not _same(doc, 40)
    assert not _same(doc, 40, None)


def test_justify_is_read_as_rich_reads_it() -> None:
    from swebash_py.render.md import PARSER

    tokens = PARSER.parse("| a | b | c | d |\n|---|:--|:-:|--:|\n| 1 | 2 | 3 | 4 |")
    cells = [t for t in tokens if t.type == "th_open"]
    assert [table.justify_of(t) for t in cells] == ["default", "left", "center", "right"]

