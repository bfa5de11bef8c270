"""All configured MCP servers of one run: started in the background, their
tools added to the registry as each becomes ready.

``start`` never waits; the REPL calls it and shows the prompt at once.
``wait_ready`` is for a one-shot question (tools are offered only once the
servers answered or gave up). A server that fails is reported once through
``on_notice`` and its tools left out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from swebash_py.config.mcp import McpServerSettings
from swebash_py.config.paths import data_dir
from swebash_py.mcpclient.connection import ServerConnection
from swebash_py.mcpclient.tool import make_tool


def log_dir() -> Path:
    return data_dir() / "mcp"


def quiet_sdk_logging() -> None:
    """The SDK logs (a server's unparsable line, with a traceback) to a file in the
    data directory: by default Python would print them on the terminal."""
    logger = logging.getLogger("mcp")
    if logger.handlers:
        return
    log_dir().mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_dir() / "client.log", encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False


class McpManager:
    def __init__(self, servers: dict[str, McpServerSettings], workspace: Path,
                 registry: Any = None, on_notice: Callable[[str], None] = lambda _n: None,
                 skipped: dict[str, str] | None = None) -> None:
        self.connections = {name: ServerConnection(name, settings, workspace,
                                                   log_dir() / f"{name}.log")
                            for name, settings in servers.items()}
        self.skipped = dict(skipped or {})  # name -> why it is not started
        self._registry = registry
        self._notice = on_notice
        self._watchers: list[asyncio.Task[None]] = []

    def __bool__(self) -> bool:
        return bool(self.connections)

    def start(self) -> None:
        """Start every enabled server (on the running loop); returns at once."""
        if self.connections:
            quiet_sdk_logging()
        for connection in self.connections.values():
            if connection.state == "pending" and connection.settings.enabled:
                connection.start()
                self._watchers.append(asyncio.get_running_loop().create_task(
                    self._watch(connection)))

    def starting(self) -> bool:
        """Whether a started server has not yet answered (or given up)."""
        return any(not w.done() for w in self._watchers)

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Until every started server is ready or failed, and its tools are added."""
        if self._watchers:
            await asyncio.wait(self._watchers, timeout=timeout)

    async def close(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()),
                             return_exceptions=True)
        for watcher in self._watchers:
            watcher.cancel()

    async def _watch(self, connection: ServerConnection) -> None:
        await connection.wait_ready()
        if connection.state == "ready":
            self._add_tools(connection)
        elif connection.state == "failed":
            self._notice(f"MCP server '{connection.name}' failed to start: {connection.error} "
                         f"(its tools are left out; log: {connection.log_path})")

    def _add_tools(self, connection: ServerConnection) -> None:
        if self._registry is None:
            return
        for remote in connection.tools:
            tool = make_tool(connection, remote)
            if tool.name not in self._registry:
                self._registry.add(tool)


async def probe(servers: dict[str, McpServerSettings],
                workspace: Path) -> list[tuple[ServerConnection, bool]]:
    """Start ``servers``, wait for each to answer or give up, stop them all:
    each connection (its tools and error kept) and whether it was ready."""
    manager = McpManager(servers, workspace)
    manager.start()
    try:
        await manager.wait_ready()
    finally:
        ready = {name: c.state == "ready" for name, c in manager.connections.items()}
        await manager.close()
    return [(connection, ready[name]) for name, connection in manager.connections.items()]
