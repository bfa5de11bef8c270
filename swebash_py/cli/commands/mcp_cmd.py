"""`ai mcp list`: the configured MCP servers, their state and tools.

Each server is started, asked for its tools and stopped. A project's servers
are started only when the project is trusted (a remembered answer or
``--trust``): listing never asks, and never runs an untrusted project's code.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from swebash_py.config import Settings

app = typer.Typer(help="MCP servers.", no_args_is_help=True, add_completion=False)


@app.command("list")
def list_servers(trust: Annotated[bool, typer.Option("--trust", help="use this folder's "
                                                     ".swebash/ settings")] = False) -> None:
    """The configured MCP servers: state, tools and errors."""
    from swebash_py.config import load_settings
    from swebash_py.project.loading import resolve_project

    settings = load_settings(project=lambda ws: resolve_project(ws, trust_flag=trust, ask=None))
    project = settings.project
    if project is not None and project.root is not None and not project.trusted:
        typer.echo(f"{project.root}/.swebash/ is not used ({project.reason}): "
                   "its servers were not started")
    if not settings.mcp_servers:
        typer.echo("no MCP servers configured ([mcp_servers.NAME] in "
                   f"{_config_hint()})")
        return
    for line in asyncio.run(_probe(settings)):
        typer.echo(line)


async def _probe(settings: Settings) -> list[str]:
    from swebash_py.mcpclient.listing import server_lines
    from swebash_py.mcpclient.manager import McpManager

    manager = McpManager(dict(settings.mcp_servers), settings.workspace)
    manager.start()
    try:
        await manager.wait_ready()
    finally:
        await manager.close()
    lines: list[str] = []
    for connection in manager.connections.values():
        if connection.state == "stopped":
            connection.state = "ready"  # it was, until this listing stopped it
        lines += server_lines(connection)
    return lines


def _config_hint() -> str:
    from swebash_py.paths import config_path

    return str(config_path())
