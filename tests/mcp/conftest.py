"""Real MCP servers for the tests: ``testserver.py`` over stdio or streamable
HTTP on 127.0.0.1, and the published ``mcp-server-time``."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def stdio_server(*flags: str) -> dict[str, object]:
    """``[mcp_servers.NAME]`` keys for the test server over stdio."""
    return {"command": sys.executable, "args": ["-m", "tests.mcp.testserver", *flags],
            "cwd": str(ROOT)}


def time_server() -> dict[str, object]:
    return {"command": sys.executable, "args": ["-m", "mcp_server_time",
                                                "--local-timezone", "UTC"]}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    """The test server over streamable HTTP; yields its URL once it accepts connections."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tests.mcp.testserver", "http", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the HTTP test server exited with {proc.returncode}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                pytest.fail("the HTTP test server did not listen within 30 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
