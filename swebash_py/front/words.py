"""Words the CLI's listings and the REPL's slash commands both print: whether a
tool asks first (``ai tools``, ``/tools``), a session's age and its turns
and its directory (``ai sessions list``, ``/sessions``)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swebash_py.tools.base import ToolTraits

_ASKS = {
    "inside-workspace": "no, inside the workspace; yes outside",
    "command": ("yes, unless an allow rule (or, inside the sandbox, the read-only list) "
                "covers every part; escalate: true always asks"),
    "ask": "yes",
    "allow": "no",
}


def confirmation(tool: ToolTraits, mode: str) -> str:
    """Whether a tool asks before running, in words, under ``mode``."""
    approval = tool.default_approval
    if mode == "strict":
        return "yes, always (strict)"
    if mode == "yolo":
        return "no (yolo), except deny rules and secrets paths"
    if approval == "auto-edit":
        if mode == "auto-edit":
            return _ASKS["inside-workspace"]
        return f"yes, with {tool.shows} shown" if tool.shows else "yes"
    if approval == "inside-workspace" and not tool.read_only:
        return "yes"
    return _ASKS[approval]



def age(timestamp: float, now: float | None = None) -> str:
    """'3m ago', '2h ago', '5d ago'."""
    seconds = max(0.0, (now or time.time()) - timestamp)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def turns_text(n: int) -> str:
    """'1 turn', '3 turns'."""
    return f"{n} turn" if n == 1 else f"{n} turns"


DIR_WIDTH = 24


def directory_text(cwd: str | None, width: int = DIR_WIDTH) -> str:
    """``~/src/app``; a long path keeps its end (the part that tells folders apart):
    ``…/work/app``. No spaces inside, so ``awk`` still sees one field."""
    if not cwd:
        return "-"
    home = os.path.expanduser("~")
    path = "~" + cwd[len(home):] if home != "/" and (cwd + "/").startswith(home + "/") else cwd
    path = path.replace(" ", "\u2423")  # a visible space: the columns stay fields
    return path if len(path) <= width else "\u2026" + path[-(width - 1):]
