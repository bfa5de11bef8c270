"""``asciilex``: on ASCII text the narrowed lexer gives exactly the original's tokens.

The narrowed classes are checked character by character against the wide ones;
the narrowed lexers are compared token for token with Pygments' own on this
repository's Python sources, on random ASCII text and on rich's Markdown output
of code blocks. Twins show non-ASCII text would lex differently (so only ASCII
code gets the variant) and that shapes ``ascii_part`` cannot prove are refused.
"""

from __future__ import annotations

import contextlib
import random
import re
from pathlib import Path

import pytest
from pygments import unistring
from pygments.lexer import RegexLexer
from pygments.lexers import find_lexer_class_by_name
from rich.markdown import Markdown

from swebash_py.render import md
from swebash_py.render.asciilex import ascii_part, ascii_variant
from swebash_py.render.md import FastMarkdown, code_lexer, lexer
from tests.render.helpers import make_console, output

ROOT = Path(__file__).resolve().parents[2]
NARROWED = ["python", "mojo", "wgsl"]  # Pygments lexers using the wide classes
OPTIONS = {"stripnl": False, "ensurenl": True, "tabsize": 4}


def _tokens(cls: type, text: str) -> list[tuple[object, str]]:
    return list(cls(**OPTIONS).get_tokens(text))


@pytest.mark.parametrize("wide", [unistring.xid_start, unistring.xid_continue])
def test_the_ascii_part_holds_exactly_the_ascii_members(wide: str) -> None:
    part = ascii_part(wide)
    assert part is not None
    for code in range(128):
        char = chr(code)
        assert bool(re.fullmatch(f"[{part}]", char)) == bool(re.fullmatch(f"[{wide}]", char))


@pytest.mark.parametrize("content", ["a-zé-\u00ff-", "a-z-é", "^a-zé", r"a-z\-é", "a-zé-z",
                                     "a-z[é", "", "é-\u00ff"])
def test_shapes_that_cannot_be_proved_are_refused(content: str) -> None:
    assert ascii_part(content) is None


def test_a_plain_prefix_and_non_ascii_ranges_are_accepted() -> None:
    assert ascii_part("0-9_a-zé-\u00ffα") == "0-9_a-z"


@pytest.mark.parametrize("alias", NARROWED)
def test_lexers_with_wide_classes_get_a_narrowed_variant(alias: str) -> None:
    cls = find_lexer_class_by_name(alias)
    variant = ascii_variant(cls)
    assert variant is not cls and issubclass(variant, cls)
    rules = [rule[0] for state in variant.get_tokendefs().values() for rule in state
             if type(rule) is tuple and isinstance(rule[0], str)]
    assert not any(unistring.xid_start in regex for regex in rules)


@pytest.mark.parametrize("alias", ["json", "rust", "bash", "text", "html"])
def test_lexers_without_them_are_left_as_they_are(alias: str) -> None:
    cls = find_lexer_class_by_name(alias)
    assert ascii_variant(cls) is cls


def test_a_case_insensitive_lexer_is_left_as_it_is() -> None:
    caseless = type(RegexLexer)("Caseless", (RegexLexer,), {
        "flags": re.IGNORECASE, "tokens": {"root": [(f"[{unistring.xid_start}]+", "Name")]}})
    assert ascii_variant(caseless) is caseless


def _python_sources() -> list[str]:
    paths = sorted((ROOT / "swebash_py").rglob("*.py"))
    texts = [path.read_text() for path in paths]
    return [text for text in texts if text.isascii()]


def test_this_repository_lexes_the_same() -> None:
    sources = _python_sources()
    assert len(sources) > 50
    cls = find_lexer_class_by_name("python")
    variant = ascii_variant(cls)
    for text in sources:
        assert _tokens(variant, text) == _tokens(cls, text)


@pytest.mark.parametrize("alias", NARROWED)
def test_random_ascii_lexes_the_same(alias: str) -> None:
    rng = random.Random(alias)
    pieces = ["def ", "class ", "@deco", "x1", "_y", "Zz9", " ", "\n", "\t", "'s'", '"""d"""',
              "f'{a!r:>3}'", "# c", "0x1F", "1e-3", "\\", "(", ")", ":", ".", "@", "$", "`",
              "fn ", "let ", "var<private>", "import a.b as c", "from . import d", "->"]
    cls = find_lexer_class_by_name(alias)
    variant = ascii_variant(cls)
    for _ in range(300):
        text = "".join(rng.choice(pieces) if rng.random() < 0.7 else chr(rng.randrange(32, 127))
                       for _ in range(rng.randint(1, 60)))
        assert _tokens(variant, text) == _tokens(cls, text), text


def test_non_ascii_text_would_lex_differently() -> None:
    """Twin: the narrowing is only sound on ASCII, so other code keeps the wide lexer."""
    cls = find_lexer_class_by_name("python")
    text = "café = naïve(1)\n"
    assert _tokens(ascii_variant(cls), text) != _tokens(cls, text)
    assert type(code_lexer("python", text)) is cls
    assert type(code_lexer("python", "cafe = 1")) is ascii_variant(cls)


def test_code_lexer_keeps_the_lookup_of_syntax() -> None:
    assert type(code_lexer("no-such-language", "x")) is find_lexer_class_by_name("text")
    assert lexer("py").options == lexer("py", True).options


@pytest.mark.parametrize("width", [12, 40, 100])
@pytest.mark.parametrize("color_system", [None, "truecolor"])
def test_code_blocks_match_rich_markdown(width: int, color_system: str | None) -> None:
    sources = _python_sources()[:40]
    blocks = [f"```python\n{text[:600]}\n```" for text in sources]
    blocks += ["```python\ncafé = naïve(1)\n```", "```wgsl\nvar<private> x1: f32;\n```",
               "```mojo\nfn f(x: Int) -> Int:\n    return x\n```"]
    doc = "\n\npara\n\n".join(blocks)
    ours, theirs = make_console(color_system, width), make_console(color_system, width)
    ours.print(FastMarkdown(doc))
    theirs.print(Markdown(doc))
    assert output(ours) == output(theirs)


def test_lexer_class_finds_what_pygments_finds() -> None:
    from pygments.lexers import get_all_lexers
    from pygments.util import ClassNotFound

    aliases = [alias for _, names, _, _ in get_all_lexers() for alias in names][::7]
    for alias in [*aliases, "Python", "SH", "py3"]:
        assert md.lexer_class(alias) is find_lexer_class_by_name(alias), alias
    for missing in ["", "p", "pyt", "no-such-language"]:
        with pytest.raises(ClassNotFound):
            md.lexer_class(missing)


def test_installed_plugins_are_listed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin's lexer is found as Pygments finds it, but the entry points are read
    once, however many unknown names (a streaming fence's prefixes) are asked for;
    Pygments' own lookup reads them on every miss (the twin)."""
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    fancy = type("ZzPluginLexer", (TextLexer,), {"aliases": ["zzplugin"]})
    scans: list[int] = []

    def plugins() -> object:
        scans.append(1)
        yield fancy

    monkeypatch.setattr(md, "find_plugin_lexers", plugins)
    # (``pygments.lexers`` replaces itself in ``sys.modules``: patch its functions' globals)
    monkeypatch.setitem(find_lexer_class_by_name.__globals__, "find_plugin_lexers", plugins)
    md._plugin_lexers.cache_clear()
    try:
        assert md.lexer_class("zzplugin") is fancy is find_lexer_class_by_name("zzplugin")
        scans.clear()
        for prefix in ["z", "zz", "zzp", "zzplug", "zzplugin"]:
            with contextlib.suppress(ClassNotFound):
                md.lexer_class(prefix)
        assert scans == []  # listed by the first lookup already
        for prefix in ["z", "zz", "zzp"]:
            with pytest.raises(ClassNotFound):
                find_lexer_class_by_name(prefix)
        assert len(scans) == 3
    finally:
        md._plugin_lexers.cache_clear()
