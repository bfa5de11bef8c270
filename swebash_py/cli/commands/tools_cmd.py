"""`ai tools`: the tools, and whether each asks first under the current mode."""

from __future__ import annotations

import typer

from swebash_py.config import load_settings

_ASKS = {
    "read_file": "no, inside the workspace; yes outside",
    "list_directory": "no, inside the workspace; yes outside",
    "search_files": "no, inside the workspace; yes outside",
    "write_file": "yes, with the new file shown",
    "edit_file": "yes, with a diff shown",
    "run_command": "yes, unless an allow rule (or the safe read-only list) covers every part",
    "web_search": "yes",
    "web_fetch": "yes (a URL can carry data out); private addresses always ask",
    "find_files": "no, inside the workspace; yes outside",
    "command_output": "no",
    "stop_command": "no",
}


def confirmation(name: str, read_only: bool, mode: str) -> str:
    """Whether a tool asks before running, in words, under ``mode``."""
    if mode == "strict":
        return "yes, always (strict)"
    if mode == "yolo":
        return "no (yolo), except deny rules and secrets paths"
    if mode == "auto-edit" and name in ("write_file", "edit_file"):
        return "no, inside the workspace; yes outside"
    return _ASKS.get(name, "no" if read_only else "yes")


def tools() -> None:
    """List the tools and whether each needs confirmation."""
    from swebash_py.tools.registry import default_tools

    settings = load_settings()
    typer.echo(f"approval mode: {settings.approval}")
    for tool in default_tools(settings):
        kind = "read-only" if tool.read_only else "changes things"
        summary = tool.description.strip().splitlines()[0]
        asks = confirmation(tool.name, tool.read_only, settings.approval)
        typer.echo(f"{tool.name:<15} {kind:<15} asks: {asks}")
        typer.echo(f"{'':<15} {summary}")
