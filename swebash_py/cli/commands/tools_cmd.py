"""`ai tools`: the tools, and whether each asks first under the current mode."""

from __future__ import annotations

import typer

from swebash_py.cli.settings import load_settings
from swebash_py.front.words import confirmation
from swebash_py.tools.base import ToolTraits


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
