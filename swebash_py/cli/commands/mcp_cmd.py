"""`ai mcp list`: the configured MCP servers, their state and tools.

Each server is started, asked for its tools and stopped. A project's servers
are started only when the project is trusted (a remembered answer or
``--trust``): listing never asks, and never runs an untrusted project's code.
Exit 1 when an enabled server failed to start (the others are still listed),
like ``ai doctor``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings

app = typer.Typer(help="MCP servers.", no_args_is_help=True, add_completion=False)


@app.command("list")
def list_servers(trust: Annotated[bool, typer.Option("--trust", help="use this folder's "
                                                     ".swebash/ settings")] = False) -> None:
    """The configured MCP servers: state, tools and errors."""
    from swebash_py.cli.settings import load_settings
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
    lines, failed = asyncio.run(_probe(settings))
    for line in lines:
        typer.echo(line)
    if failed:
        typer.echo(f"ai: {', '.join(failed)} failed to start", err=True)
        raise typer.Exit(1)


async def _probe(settings: Settings) -> tuple[list[str], list[str]]:
    """Each server's lines, and the names of the enabled ones that did not start."""
    from swebash_py.mcpclient.listing import server_lines
    from swebash_py.mcpclient.manager import probe

    lines: list[str] = []
    failed: list[str] = []
    for connection, ready in await probe(dict(settings.mcp_servers), settings.workspace):
        if ready:
            connection.state = "ready"  # it was, until this listing stopped it
        elif connection.settings.enabled:
            failed.append(connection.name)
        lines += server_lines(connection)
    return lines, failed


def _config_hint() -> str:
    from swebash_py.config.paths import config_path

    return str(config_path())
