"""The MCP client against real servers: the test server over stdio and HTTP,
and the published mcp-server-time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from swebash_py.config.mcp import McpServerSettings
from swebash_py.mcpclient.manager import McpManager
from swebash_py.tools.base import ToolContext
from swebash_py.tools.registry import ToolRegistry
from tests.mcp.conftest import stdio_server, time_server


def settings(**servers: dict[str, Any]) -> dict[str, McpServerSettings]:
    return {name: McpServerSettings.from_data(raw) for name, raw in servers.items()}


async def started(servers: dict[str, McpServerSettings], workspace: Path
                  ) -> tuple[McpManager, ToolRegistry, list[str]]:
    registry = ToolRegistry([])
    notices: list[str] = []
    manager = McpManager(servers, workspace, registry, notices.append)
    manager.start()
    await manager.wait_ready(60)
    return manager, registry, notices


async def call(registry: ToolRegistry, name: str, workspace: Path, **arguments: Any) -> Any:
    tool = registry.get(name)
    assert tool is not None, registry.names()
    return await tool.run(tool.Args.parse(arguments), ToolContext(workspace))


async def test_stdio_server_tools_are_offered_and_called(workspace: Path) -> None:
    manager, registry, notices = await started(settings(t=stdio_server()), workspace)
    try:
        assert notices == []
        assert {"mcp__t__echo", "mcp__t__add", "mcp__t__boom"} <= set(registry.names())
        spec = registry.get("mcp__t__add").spec()  # type: ignore[union-attr]
        assert spec.parameters["type"] == "object"
        assert set(spec.parameters["required"]) == {"a", "b"}
        result = await call(registry, "mcp__t__echo", workspace, text="hello")
        assert (result.output, result.is_error) == ("echo: hello", False)
        assert (await call(registry, "mcp__t__add", workspace, a=2, b=3)).output == "5"
        hints = {t.name: t.read_only_hint for t in manager.connections["t"].tools}
        assert hints["echo"] and not hints["add"]  # echo claims readOnlyHint...
        assert not registry.get("mcp__t__echo").read_only  # type: ignore[union-attr]
    finally:
        await manager.close()
    assert manager.connections["t"].state == "stopped"


async def test_http_server_tools_are_offered_and_called(workspace: Path, http_server: str
                                                        ) -> None:
    manager, registry, notices = await started(settings(web={"url": http_server}), workspace)
    try:
        assert notices == []
        result = await call(registry, "mcp__web__echo", workspace, text="over http")
        assert (result.output, result.is_error) == ("echo: over http", False)
    finally:
        await manager.close()


async def test_published_time_server(workspace: Path) -> None:
    manager, registry, _ = await started(settings(time=time_server()), workspace)
    try:
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(registry.names())
        result = await call(registry, "mcp__time__get_current_time", workspace, timezone="UTC")
        assert not result.is_error
        assert json.loads(result.output)["timezone"] == "UTC"
    finally:
        await manager.close()


async def test_failures_are_error_results_and_the_server_lives_on(workspace: Path) -> None:
    servers = settings(t={**stdio_server(), "tool_timeout": 5})
    manager, registry, _ = await started(servers, workspace)
    try:
        raised = await call(registry, "mcp__t__boom", workspace)
        assert raised.is_error and "boom" in raised.output
        bad_args = await call(registry, "mcp__t__add", workspace, a="x")
        assert bad_args.is_error
        slow = await call(registry, "mcp__t__slow", workspace, seconds=30)
        assert slow.is_error and "tool_timeout" in slow.output
        after = await call(registry, "mcp__t__echo", workspace, text="still here")
        assert after.output == "echo: still here"
    finally:
        await manager.close()


async def test_a_server_that_dies_mid_call(workspace: Path) -> None:
    manager, registry, _ = await started(settings(t=stdio_server()), workspace)
    try:
        died = await call(registry, "mcp__t__die", workspace)
        assert died.is_error and "'t'" in died.output
        assert manager.connections["t"].state == "failed"
        again = await call(registry, "mcp__t__echo", workspace, text="x")
        assert again.is_error and "not running" in again.output
    finally:
        await manager.close()


async def test_a_server_that_fails_to_start_is_reported_once(workspace: Path) -> None:
    servers = settings(bad=stdio_server("--fail-at-start"), good=stdio_server())
    manager, registry, notices = await started(servers, workspace)
    try:
        assert len(notices) == 1
        assert "'bad' failed to start" in notices[0]
        assert "missing something" in notices[0]  # the server's own last words
        assert not [n for n in registry.names() if n.startswith("mcp__bad__")]
        assert "mcp__good__echo" in registry.names()
    finally:
        await manager.close()


async def test_a_server_that_speaks_garbage_or_does_not_exist(workspace: Path) -> None:
    servers = settings(garbage={**stdio_server("--garbage"), "startup_timeout": 2},
                       missing={"command": str(workspace / "no-such-server")})
    manager, registry, notices = await started(servers, workspace)
    try:
        assert len(registry) == 0
        assert manager.connections["garbage"].state == "failed"
        assert "startup_timeout" in manager.connections["garbage"].error
        assert manager.connections["missing"].state == "failed"
        assert len(notices) == 2
    finally:
        await manager.close()


async def test_server_strings_are_sanitised(workspace: Path) -> None:
    manager, registry, _ = await started(settings(t=stdio_server()), workspace)
    try:
        tool = registry.get("mcp__t__escape")
        assert tool is not None
        assert "\x1b" not in tool.description and "\x07" not in tool.description
        assert "Shows red text" in tool.description
        result = await call(registry, "mcp__t__escape", workspace)
        assert result.output == "cleared?"
    finally:
        await manager.close()


async def test_images_and_resource_links_become_notes(workspace: Path) -> None:
    manager, registry, _ = await started(settings(t=stdio_server()), workspace)
    try:
        image = await call(registry, "mcp__t__picture", workspace)
        assert image.output.startswith("[image returned by the tool: image/png")
        link = await call(registry, "mcp__t__link", workspace)
        assert "[resource link: report file:///tmp/report.txt]" in link.output
    finally:
        await manager.close()


async def test_server_stderr_goes_to_a_log_in_the_data_dir(workspace: Path,
                                                           isolated: Path) -> None:
    manager, _, _ = await started(settings(t=stdio_server()), workspace)
    await manager.close()
    log = isolated / "data" / "mcp" / "t.log"
    assert "test server starting" in log.read_text()


@pytest.mark.parametrize("timeout", [None])
async def test_a_manager_without_servers_starts_nothing(workspace: Path, timeout: None) -> None:
    manager = McpManager({}, workspace, ToolRegistry([]))
    manager.start()
    await manager.wait_ready(timeout)
    assert not manager


async def test_elicitation_requests_are_refused(workspace: Path) -> None:
    manager, registry, _ = await started(settings(t=stdio_server()), workspace)
    try:
        result = await call(registry, "mcp__t__ask_user", workspace)
        assert result.output.startswith("elicitation refused"), result.output
    finally:
        await manager.close()


def test_doctor_lines_name_each_server(workspace: Path) -> None:
    from swebash_py.config.settings import Settings
    from swebash_py.mcpclient.doctor import mcp_checks

    settings = Settings.from_data({"mcp_servers": {
        "good": stdio_server(), "bad": stdio_server("--fail-at-start")}})
    lines = {name: (status, detail) for name, status, detail in mcp_checks(settings)}
    assert lines["mcp good"][0] == "ok" and "tools" in lines["mcp good"][1]
    assert lines["mcp bad"][0] == "fail" and "missing something" in lines["mcp bad"][1]


def test_config_show_hides_mcp_env_and_headers(isolated: Path) -> None:
    from tests.e2e.conftest import run_ai

    (isolated / "config.toml").write_text(
        '[mcp_servers.docs]\nurl = "http://127.0.0.1:9/mcp"\n'
        'headers = { Authorization = "Bearer literal-secret-1", X-Ref = "${DOCS_TOKEN}" }\n'
        '[mcp_servers.gh]\ncommand = "gh-mcp"\nenv = { GH = "ghp_literalsecret2" }\n')
    shown = run_ai("config", "show")
    assert shown.returncode == 0, shown.stderr
    assert "[mcp_servers.docs]" in shown.stdout and "${DOCS_TOKEN}" in shown.stdout
    assert "literal-secret-1" not in shown.stdout and "literalsecret2" not in shown.stdout


async def test_closing_while_a_server_is_still_starting(workspace: Path) -> None:
    servers = settings(garbage={**stdio_server("--garbage"), "startup_timeout": 600})
    manager = McpManager(servers, workspace, ToolRegistry([]))
    manager.start()
    assert manager.starting()
    await manager.close()  # does not wait out the 600 s start-up
    assert manager.connections["garbage"].state in ("stopped", "failed")


class _Recorder:
    """A plain HTTP listener that records each request's head and answers 500:
    what our MCP client really sends, headers included."""

    def __init__(self) -> None:
        import socket
        import threading

        self.heads: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/mcp"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data and (chunk := conn.recv(65536)):
                    data += chunk
                self.heads.append(data.split(b"\r\n\r\n")[0].decode("latin-1").lower())
                conn.sendall(b"HTTP/1.1 500 No\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")

    def close(self) -> None:
        self._sock.close()


async def test_http_headers_are_sent_through_the_sdks_public_client(workspace: Path) -> None:
    """The configured headers reach the server (the SDK's public way: our own
    httpx2 client handed to ``streamable_http_client``); the twin: a server
    configured without them gets none."""
    recorder = _Recorder()
    try:
        servers = settings(auth={"url": recorder.url, "startup_timeout": 5,
                                 "headers": {"Authorization": "Bearer t-1", "X-Ref": "r"}},
                           plain={"url": recorder.url, "startup_timeout": 5})
        manager, _registry, _notices = await started(servers, workspace)
        await manager.close()
    finally:
        recorder.close()
    with_headers = [h for h in recorder.heads if "authorization: bearer t-1" in h]
    assert with_headers and all("x-ref: r" in h for h in with_headers)
    assert any("authorization" not in h for h in recorder.heads)  # the twin


def test_no_private_sdk_module_is_imported() -> None:
    """``mcp.shared._httpx_utils`` and the like change without notice: the package
    uses the SDK's public modules only. The twin: the check sees a private one."""
    import ast

    import swebash_py

    def private(source: str) -> list[str]:
        found = []
        for node in ast.walk(ast.parse(source)):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            found += [n for n in names if n.split(".")[0] in ("mcp", "mcp_types")
                      and any(part.startswith("_") for part in n.split("."))]
        return found

    root = Path(swebash_py.__file__).parent
    assert [(p.name, private(p.read_text())) for p in root.rglob("*.py")
            if private(p.read_text())] == []
    assert private("from mcp.shared._httpx_utils import create_mcp_http_client") == [
        "mcp.shared._httpx_utils"]
