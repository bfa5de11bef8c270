"""One MCP server: started in its own task, kept open, called from any task.

The SDK's transports are context managers that must be entered and left in
one task, so each server lives in a task of its own (``run``) that connects,
lists the tools, reports ready, and then waits to be stopped. Calls go
through the open ``ClientSession`` from other tasks, each bounded by the
server's ``tool_timeout``. Whatever happens (a crash, a hang, garbage), a
call returns a ``ToolResult``; a server that cannot start is ``failed``.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from swebash_py.config.mcp import McpServerSettings
from swebash_py.text.sanitize import one_line
from swebash_py.tools.base import ToolResult

State = Literal["pending", "starting", "ready", "failed", "stopped"]
CLIENT_NAME = "swebash"
HTTP_TIMEOUT, HTTP_READ_TIMEOUT = 30.0, 300.0  # seconds, as the SDK's own client has them


@dataclass
class ServerTool:
    """A tool as the server described it (strings already sanitised for display)."""

    name: str  # the server's own name, as sent back in calls
    description: str
    input_schema: dict[str, Any]
    read_only_hint: bool = False


@dataclass
class ServerConnection:
    name: str
    settings: McpServerSettings
    workspace: Path
    log_path: Path
    state: State = "pending"
    error: str = ""
    tools: list[ServerTool] = field(default_factory=list)
    server_info: str = ""
    _session: Any = None
    _task: asyncio.Task[None] | None = None
    _ready: asyncio.Event = field(default_factory=asyncio.Event)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    def start(self) -> None:
        """Start connecting in the background (on the running loop)."""
        if self._task is None and self.settings.enabled:
            self.state = "starting"
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                name=f"mcp-{self.name}")

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Until the server is ready or has failed (or ``timeout`` passes)."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)

    async def stop(self) -> None:
        """Close the session and the server (bounded: the SDK kills a laggard)."""
        self._stop.set()
        if self._task is not None:
            if not self._ready.is_set():  # still starting: do not wait for it to finish
                self._task.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._task), 10)
            if not self._task.done():
                self._task.cancel()
        if self.state in ("ready", "starting", "pending"):
            self.state = "stopped"

    async def call(self, tool: str, arguments: dict[str, Any], limit: int) -> ToolResult:
        """Call ``tool``; every failure becomes an error result."""
        from swebash_py.mcpclient.results import map_result

        if self.state != "ready" or self._session is None:
            why = f": {self.error}" if self.error else ""
            return ToolResult(f"MCP server '{self.name}' is not running ({self.state}{why})",
                              is_error=True)
        timeout = self.settings.tool_timeout
        try:
            async with asyncio.timeout(timeout):
                result = await self._session.call_tool(tool, arguments)
        except TimeoutError:
            return ToolResult(f"MCP server '{self.name}' did not answer within {timeout:g} s "
                              f"(tool_timeout)", is_error=True)
        except Exception as exc:  # a crash, a closed pipe, an invalid answer
            if not _is_protocol_error(exc):  # the connection itself is gone
                self.state = "failed"
                self.error = f"the connection failed: {_describe(exc)}"
                self._stop.set()
            return ToolResult(f"MCP server '{self.name}' failed: {_describe(exc)}",
                              is_error=True)
        return map_result(result, limit)

    # -- the server's own task ----------------------------------------------------

    async def _run(self) -> None:
        try:
            # The SDK's import takes most of a second (it pulls in starlette and
            # uvicorn): in a thread, so the REPL's prompt stays responsive.
            await asyncio.to_thread(import_sdk)
            async with contextlib.AsyncExitStack() as stack:
                # asyncio.timeout, not wait_for: on 3.11 wait_for runs the coroutine
                # in another task, and the SDK's scopes must stay in this one.
                async with asyncio.timeout(self.settings.startup_timeout):
                    session = await self._connect(stack)
                self._session = session
                self.state = "ready"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            self._fail("stopped before it was ready" if not self._ready.is_set() else "")
            raise
        except Exception as exc:  # a server must never take us down
            if isinstance(_leaf(exc), TimeoutError) and not self._ready.is_set():
                self._fail(f"did not start within {self.settings.startup_timeout:g} s "
                           "(startup_timeout)")
            else:
                self._fail(_describe(exc))
        finally:
            self._session = None
            self._ready.set()
            if self.state == "ready":
                self.state = "stopped" if self._stop.is_set() else "failed"
                if self.state == "failed":
                    self.error = self.error or "the connection closed"

    def _fail(self, message: str) -> None:
        if message and not self._stop.is_set():
            self.state = "failed"
            last = last_log_line(self.log_path) if self.settings.command else ""
            self.error = f"{message}; its last words: {last}" if last else message

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Any:
        from mcp import ClientSession
        from mcp.types import Implementation

        from swebash_py import __version__

        read, write = await stack.enter_async_context(self._transport(stack))
        session = await stack.enter_async_context(ClientSession(
            read, write, client_info=Implementation(name=CLIENT_NAME, version=__version__)))
        init = await session.initialize()
        info = getattr(init, "server_info", None)
        if info is not None:
            self.server_info = one_line(f"{info.name} {info.version}", 80)
        self.tools = await _list_tools(session)
        return session

    def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        settings = self.settings
        if settings.command:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            errlog = stack.enter_context(open(self.log_path, "a", encoding="utf-8"))  # noqa: SIM115
            cwd = Path(settings.cwd).expanduser() if settings.cwd else self.workspace
            params = StdioServerParameters(command=settings.command, args=settings.args,
                                           env=settings.resolved_env() or None,
                                           cwd=str(self.workspace / cwd))
            return stdio_client(params, errlog=errlog)
        import httpx2  # the SDK's HTTP client: how its public API takes headers
        from mcp.client.streamable_http import streamable_http_client

        # the SDK's own defaults (a server may hold a response stream open); the
        # transport follows redirects itself, within the endpoint's origin only
        client = httpx2.AsyncClient(headers=settings.resolved_headers() or None,
                                    timeout=httpx2.Timeout(HTTP_TIMEOUT, read=HTTP_READ_TIMEOUT))
        return _with_client(client, streamable_http_client(str(settings.url), http_client=client))


@contextlib.asynccontextmanager
async def _with_client(client: Any, transport: Any) -> Any:
    async with client, transport as streams:
        yield streams


async def _list_tools(session: Any) -> list[ServerTool]:
    """Every tool (following pages, at most 20 of them), sanitised for display."""
    from mcp.types import PaginatedRequestParams

    found: list[ServerTool] = []
    cursor = None
    for _ in range(20):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        for tool in page.tools:
            hints = getattr(tool, "annotations", None)
            found.append(ServerTool(
                name=str(tool.name), description=one_line(tool.description or "", 1024),
                input_schema=dict(tool.input_schema or {}),
                read_only_hint=bool(getattr(hints, "read_only_hint", False))))
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            break
    return found


def import_sdk() -> None:
    """Import the SDK modules a connection uses."""
    import httpx2  # noqa: F401
    import mcp.client.stdio
    import mcp.client.streamable_http  # noqa: F401


def _is_protocol_error(exc: BaseException) -> bool:
    """A JSON-RPC error answer (the server is alive) rather than a dead connection."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(exc, MCPError):
        return exc.error.code != CONNECTION_CLOSED
    return isinstance(exc, ValueError)  # a reply the SDK's (pydantic) models refused too


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    """One sanitised line for an exception, groups unwrapped."""
    exc = _leaf(exc)
    text = str(exc) or type(exc).__name__
    return one_line(f"{type(exc).__name__}: {text}" if str(exc) else text, 300)


def last_log_line(path: Path, limit: int = 200) -> str:
    """The last non-empty line the server wrote to its log, sanitised."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - 4096))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line for line in tail.splitlines() if line.strip()]
    return one_line(lines[-1], limit) if lines else ""
