"""The sandbox's per-command cost on large workspaces: the policy build (the
cached index of secrets and settings) and the bwrap start, for the first command
(an empty index) and later ones (warm), and a preview's overhead.

Synthetic trees of 24k and 200k paths (directories of 9 entries, a secret in
every 100th directory, a ``.swebash`` in every 500th). Runs against whichever
code is first on the path, so "before" is main's package:

    .venv/bin/python bench/bench_sandbox_index.py [RUNS]
    git -C /work/main archive main swebash_py | tar -x -C /tmp/before &&
      PYTHONPATH=/tmp/before .venv/bin/python bench/bench_sandbox_index.py [RUNS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import swebash_py
from swebash_py.config.settings import Settings
from swebash_py.sandbox.build import build_policy
from swebash_py.sandbox.runner import available
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand

try:  # after: one index of secrets and settings
    from swebash_py.sandbox import pathindex as index_module

    def fresh_index() -> None:
        index_module.INDEX = index_module.PathIndex()
except ImportError:  # before: the .env index
    from swebash_py.sandbox import envfiles as index_module  # type: ignore[no-redef]

    def fresh_index() -> None:
        index_module.INDEX = index_module.EnvFileIndex()  # type: ignore[attr-defined]


def make_tree(root: Path, paths: int) -> None:
    """``paths`` entries: directories of 8 files, some secrets and settings."""
    dirs = paths // 9
    for i in range(dirs):
        d = root / f"pkg{i // 100}" / f"mod{i}"
        d.mkdir(parents=True)
        for j in range(8):
            (d / f"f{j}.py").write_bytes(b"")
        if i % 100 == 0:
            (d / ("server.pem" if i % 200 else ".env")).write_text("SECRET\n")
        if i % 500 == 0:
            (d / ".swebash").mkdir()


async def one_command(tool: RunCommand, ctx: ToolContext, args: Any) -> None:
    await tool.run(args, ctx)


def command_ms(workspace: Path, grant: str, runs: int, first: bool) -> list[float]:
    """``true`` through run_command: policy build + bwrap start (+ the sweep)."""
    tool = RunCommand()
    ctx = ToolContext(workspace=workspace, grant=grant)
    args = tool.Args.parse({"command": "true"})
    times = []
    for _ in range(runs):
        if first:
            fresh_index()
        start = time.perf_counter()
        asyncio.run(one_command(tool, ctx, args))
        times.append((time.perf_counter() - start) * 1000)
    return times


def policy_ms(workspace: Path, runs: int, first: bool) -> list[float]:
    section = Settings().sandbox
    times = []
    for _ in range(runs):
        if first:
            fresh_index()
        start = time.perf_counter()
        build_policy(section, "write", workspace)
        times.append((time.perf_counter() - start) * 1000)
    return times


def preview_ms(workspace: Path, runs: int) -> tuple[list[float], list[float]]:
    from swebash_py.preview.run import run_preview
    from swebash_py.sandbox import runner

    policy = build_policy(Settings().sandbox, "write", workspace)
    plain, previewed = [], []
    for _ in range(runs):
        start = time.perf_counter()
        asyncio.run(runner.run(["/bin/sh", "-c", "echo x > out.txt"], policy, timeout=30))
        plain.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        found = asyncio.run(run_preview(["/bin/sh", "-c", "echo x > out.txt"], policy,
                                        timeout=30))
        found.discard()
        previewed.append((time.perf_counter() - start) * 1000)
    return plain, previewed


def show(label: str, times: list[float]) -> float:
    median = statistics.median(times)
    print(f"  {label:<34} median {median:8.1f} ms   min {min(times):8.1f}   "
          f"max {max(times):8.1f}")
    return median


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    found = available()
    print(f"code: {Path(swebash_py.__file__).parent}; index: {index_module.__name__}")
    print(f"sandbox: {found.name} ({found.detail}); {runs} runs each")
    for paths in (24_000, 200_000):
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            ws = Path(tmp) / "ws"
            ws.mkdir()
            make_tree(ws, paths)
            time.sleep(2.5)  # past the index's margin: a warm walk trusts the listings
            print(f"{paths:,} paths:")
            few = max(3, runs // 3)
            show("policy, first command", policy_ms(ws, few, first=True))
            show("policy, later commands", policy_ms(ws, runs, first=False))
            show("`true` read-only, first", command_ms(ws, "read", few, first=True))
            show("`true` read-only, later", command_ms(ws, "read", runs, first=False))
            show("`true` workspace-write, later", command_ms(ws, "write", runs, first=False))
            if paths == 24_000:
                plain, previewed = preview_ms(ws, runs)
                a, b = show("write, sandbox", plain), show("write, preview", previewed)
                print(f"  preview overhead: +{b - a:.1f} ms")


if __name__ == "__main__":
    main()
