"""``ai doctor``'s MCP lines: each configured server started, listed, stopped.

Returns ``(name, status, detail)`` triples (status ``ok`` / ``warn`` /
``fail``) so the doctor can wrap them in its own check type. Never starts an
untrusted project's servers (the settings were loaded without them).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings

Line = tuple[str, Literal["ok", "warn", "fail"], str]


def mcp_checks(settings: Settings) -> list[Line]:
    found: list[Line] = []
    project = settings.project
    if project is not None and project.root is not None and not project.trusted:
        found.append(("mcp", "warn", f"{project.root}/.swebash/ is not used: {project.reason}"))
    servers = {n: s for n, s in settings.mcp_servers.items() if s.enabled}
    if servers:
        found += asyncio.run(_probe(servers, settings.workspace))
    return found


async def _probe(servers: dict[str, Any], workspace: Any) -> list[Line]:
    from swebash_py.mcpclient.manager import probe

    lines: list[Line] = []
    for connection, ready in await probe(servers, workspace):
        name = connection.name
        if ready:
            lines.append((f"mcp {name}", "ok", f"{len(connection.tools)} tools"
                          + (f" ({connection.server_info})" if connection.server_info else "")))
        else:
            lines.append((f"mcp {name}", "fail", f"{connection.error} "
                          f"(log: {connection.log_path})"))
    return lines
