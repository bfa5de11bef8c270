"""Terminal rendering of the turn event stream (the only package that imports rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swebash_py.render.jsonl import JsonRenderer
from swebash_py.text.sanitize import neutralize

if TYPE_CHECKING:
    from rich.console import Console

    from swebash_py.render.console import Renderer
    from swebash_py.render.plain import PlainRenderer

__all__ = ["JsonRenderer", "PlainRenderer", "Renderer", "make_renderer", "neutralize"]


def __getattr__(name: str) -> Any:
    """``Renderer`` and ``PlainRenderer`` (and with them rich) load only when used:
    ``text.sanitize`` is imported for a piped answer, which needs no rich."""
    if name == "Renderer":
        from swebash_py.render.console import Renderer

        return Renderer
    if name == "PlainRenderer":
        from swebash_py.render.plain import PlainRenderer

        return PlainRenderer
    raise AttributeError(name)


def make_renderer(
    console: Console | None = None, *, plain: bool | None = None,
    status_to_stderr: bool = False, **options: Any
) -> Renderer | PlainRenderer:
    """A ``Renderer`` for a colour terminal, else a ``PlainRenderer``.

    ``plain=None`` decides from the console: not a terminal or ``TERM=dumb`` mean
    plain. ``NO_COLOR`` keeps the rendered layout and drops only colour (rich's
    console honours it), as no-color.org asks. ``options`` go to the chosen class (``show_usage``,
    ``thinking``, ``status``, ...); options one class does not know are dropped.
    ``status_to_stderr``: plain output's status lines go to a console on stderr
    (made only when plain output is chosen).
    """
    from rich.console import Console

    console = console or Console()
    if plain is None:
        plain = not console.is_terminal or console.is_dumb_terminal
    if plain:
        from swebash_py.render.plain import PlainRenderer

        if status_to_stderr:
            options.setdefault("status", Console(stderr=True))
        known = {"status", "result_lines"}  # no usage line in a pipe (the contract)
        return PlainRenderer(console, **{k: v for k, v in options.items() if k in known})
    options.pop("status", None)
    from swebash_py.render.console import Renderer

    return Renderer(console, **options)
