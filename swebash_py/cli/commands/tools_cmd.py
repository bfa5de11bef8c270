"""`ai tools`: the tools, and whether each asks first under the current mode."""

from __future__ import annotations

import typer

from swebash_py.cli.settings import load_settings
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


def tools() -> None:
    """List the tools and whether each needs confirmation."""
    from swebash_py.project.loading import resolve_project
    from swebash_py.tools.registry import default_tools

    settings = load_settings(project=lambda ws: resolve_project(ws, ask=None))
    typer.echo(f"approval mode: {settings.approval}")
    for tool in default_tools(settings):
        kind = "read-only" if tool.read_only else "changes things"
        summary = tool.description.strip().splitlines()[0]
        asks = confirmation(tool.traits(), settings.approval)
        typer.echo(f"{tool.name:<15} {kind:<15} asks: {asks}")
        typer.echo(f"{'':<15} {summary}")
    for name in settings.mcp_servers:
        pattern = f"mcp__{name}__*"
        asks = confirmation(ToolTraits(pattern, approval="ask"), settings.approval)
        if asks == "yes":
            asks = "yes, unless an allow rule matches (e.g. mcp__SERVER__*)"
        typer.echo(f"{pattern:<15} {'MCP server':<15} asks: {asks}")
        typer.echo(f"{'':<15} the tools of MCP server {name} (ai mcp list shows them)")
