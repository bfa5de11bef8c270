"""The suite's ``style_codes_per_colour_system`` fixture: a style rendered at one
colour system shows that system's codes even after another (the twin, with rich's
own caching back, shows the leak the fixture removes)."""

from __future__ import annotations

import pytest
from rich.color import ColorSystem
from rich.style import Style


def _both(style: Style) -> tuple[str, str]:
    return (style.render("x", color_system=ColorSystem.STANDARD),
            style.render("x", color_system=ColorSystem.TRUECOLOR))


def test_each_render_gets_its_colour_system_s_codes() -> None:
    standard, truecolor = _both(Style(bgcolor="#272822"))
    assert standard != truecolor
    assert "48;2;39;40;34" in truecolor


def test_the_twin_with_rich_s_cache_leaks_the_first_system(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = Style._make_ansi_codes.__wrapped__  # type: ignore[attr-defined]
    monkeypatch.setattr(Style, "_make_ansi_codes", original)
    standard, truecolor = _both(Style(bgcolor="#272822"))
    assert standard == truecolor
