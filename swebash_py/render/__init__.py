"""Terminal rendering of the turn event stream (the only package that imports rich)."""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING, Any

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
    ``status_to_stderr``: plain output's status lines go to stderr.
    Without a console, stdout that is plainly no terminal (``_piped``) gets the
    plain renderer without rich being imported at all; any other case is rich's
    ``Console`` to decide.
    """
    if console is None and plain is not False and _piped():
        return _plain(sys.stdout, status_to_stderr, options)
    from rich.console import Console

    console = console or Console()
    if plain is None:
        plain = not console.is_terminal or console.is_dumb_terminal
    if plain:
        return _plain(console.file, status_to_stderr, options)
    options.pop("status", None)
    from swebash_py.render.console import Renderer

    return Renderer(console, **options)


def _plain(out: IO[str], status_to_stderr: bool, options: dict[str, Any]) -> PlainRenderer:
    from swebash_py.render.plain import PlainRenderer

    if status_to_stderr:
        options.setdefault("status", sys.stderr)
    known = {"status", "result_lines"}  # no usage line in a pipe (the contract)
    return PlainRenderer(out, **{k: v for k, v in options.items() if k in known})


def _piped() -> bool:
    """Whether stdout is surely not a terminal: no environment variable that rich
    reads to force one (``FORCE_COLOR``, ``TTY_COMPATIBLE``, ``TTY_INTERACTIVE``)
    and ``isatty`` false. Doubtful cases return False: rich decides them."""
    if any(name in os.environ for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")):
        return False
    try:
        return not sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed, or replaced by an object without it
        return False
