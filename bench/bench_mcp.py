"""MCP costs: REPL start-up with two MCP servers configured against none, and the
latency of an MCP tool (servers ready, first call, later calls).

Servers: the tests' own server (tests/mcp/testserver.py, stdio) and the published
mcp-server-time (stdio), both local, no network.

Run: .venv/bin/python bench/bench_mcp.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_repl_start import prompt_times
from bench.common import ROOT, home_env

SERVERS = f"""
[mcp_servers.t]
command = "{sys.executable}"
args = ["-m", "tests.mcp.testserver"]
cwd = "{ROOT}"
[mcp_servers.time]
command = "{sys.executable}"
args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
"""


def repl_start(runs: int, config: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as home:
        Path(home, "c.toml").write_text(config)
        env = home_env(home, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
        prompt_times(env)  # warm-up
        samples = [prompt_times(env) for _ in range(runs)]
    return (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples))


async def call_latency() -> tuple[float, float, float, float]:
    import tomllib

    from swebash_py.config.settings import Settings
    from swebash_py.mcpclient.manager import McpManager
    from swebash_py.tools.base import ToolContext
    from swebash_py.tools.registry import ToolRegistry

    servers = Settings.from_data(tomllib.loads(SERVERS)).mcp_servers
    registry = ToolRegistry([])
    start = time.perf_counter()
    manager = McpManager(servers, ROOT, registry)
    manager.start()
    await manager.wait_ready()
    ready = time.perf_counter() - start
    tool = registry.get("mcp__time__get_current_time")
    assert tool is not None, registry.names()
    args, ctx = tool.Args.parse({"timezone": "UTC"}), ToolContext(ROOT)
    t0 = time.perf_counter()
    first = await tool.run(args, ctx)
    first_call = time.perf_counter() - t0
    assert not first.is_error, first.output
    later = []
    for _ in range(20):
        t0 = time.perf_counter()
        await tool.run(args, ctx)
        later.append(time.perf_counter() - t0)
    await manager.close()
    return ready, first_call, ready + first_call, statistics.median(later)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    none = repl_start(runs, "")
    two = repl_start(runs, SERVERS)
    print(f"REPL prompt drawn, no MCP servers     {none[0] * 1000:7.1f} ms")
    print(f"REPL prompt drawn, two MCP servers    {two[0] * 1000:7.1f} ms")
    print(f"full prompt ready, no MCP servers     {none[1] * 1000:7.1f} ms")
    print(f"full prompt ready, two MCP servers    {two[1] * 1000:7.1f} ms")
    ready, first, total, later = asyncio.run(call_latency())
    print(f"two servers started and listed        {ready * 1000:7.1f} ms (in the background)")
    print(f"first mcp__time__get_current_time     {first * 1000:7.1f} ms "
          f"(start + first call {total * 1000:.0f} ms)")
    print(f"later calls (median of 20)            {later * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
