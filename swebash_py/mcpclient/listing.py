"""MCP servers as lines of text, for ``/mcp`` and ``ai mcp list``: state,
tools and errors, every server-supplied string already sanitised."""

from __future__ import annotations

from swebash_py.mcpclient.connection import ServerConnection
from swebash_py.mcpclient.schema import tool_name
from swebash_py.text.sanitize import one_line


def server_lines(connection: ServerConnection, *, verbose: bool = True) -> list[str]:
    settings = connection.settings
    where = settings.url if settings.url else " ".join([str(settings.command), *settings.args])
    state = connection.state if settings.enabled else "disabled"
    head = f"{connection.name}  [{state}]  {settings.transport}: {one_line(str(where), 80)}"
    if connection.server_info:
        head += f"  ({connection.server_info})"
    lines = [head]
    if connection.error:
        lines.append(f"    error: {connection.error}")
        if settings.command:
            lines.append(f"    log: {connection.log_path}")
    for tool in connection.tools:
        name = tool_name(connection.name, tool.name)
        lines.append(f"    {name}" + (f"  {one_line(tool.description, 70)}" if verbose else ""))
    return lines
