"""The sandbox's cost per command: ``true`` through run_command, sandboxed
(bwrap, read-only and workspace-write) against plain (``--sandbox off``), and
the cost of building the policy on this repository: the index of secrets and
settings (warm: a stat per directory) against a full walk.

    .venv/bin/python bench/bench_sandbox.py [RUNS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from swebash_py.config.settings import Settings
from swebash_py.sandbox.build import build_policy
from swebash_py.sandbox.runner import available
from swebash_py.sandbox.secrets import workspace_secrets
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand

ROOT = Path(__file__).resolve().parents[1]


async def per_command(workspace: Path, grant: str, runs: int) -> list[float]:
    tool = RunCommand()
    ctx = ToolContext(workspace=workspace, grant=grant)
    args = tool.Args.parse({"command": "true"})
    await tool.run(args, ctx)  # warm: the probe, imports
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await tool.run(args, ctx)
        times.append((time.perf_counter() - start) * 1000)
    return times


def show(label: str, times: list[float]) -> float:
    median = statistics.median(times)
    print(f"{label:<28} median {median:7.1f} ms   min {min(times):7.1f} ms   "
          f"max {max(times):7.1f} ms")
    return median


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    found = available()
    print(f"sandbox: {found.name} ({found.detail}); {runs} runs of `true` each")
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        plain = show("plain (--sandbox off)", asyncio.run(per_command(ws, "host", runs)))
        if found.ok:
            ro = show("bwrap read-only", asyncio.run(per_command(ws, "read", runs)))
            rw = show("bwrap workspace-write", asyncio.run(per_command(ws, "write", runs)))
            print(f"sandbox cost per command: +{ro - plain:.1f} ms (read-only), "
                  f"+{rw - plain:.1f} ms (workspace-write)")
    section = Settings().sandbox
    files = sum(1 for _ in ROOT.rglob("*"))
    print(f"this repo: {files} paths; wall and CPU time (CPU is steadier on a busy machine)")
    build_policy(section, "write", ROOT)  # the first walk fills the index
    show("policy (index, warm)", timed(lambda: build_policy(section, "write", ROOT), runs))
    show("policy (index, warm) cpu",
         timed(lambda: build_policy(section, "write", ROOT), runs, time.process_time))
    show("full secrets walk", timed(lambda: list(workspace_secrets(ROOT)), runs))
    show("full secrets walk cpu",
         timed(lambda: list(workspace_secrets(ROOT)), runs, time.process_time))


def timed(work: Callable[[], object], runs: int,
          clock: Callable[[], float] = time.perf_counter) -> list[float]:
    times = []
    for _ in range(runs):
        start = clock()
        work()
        times.append((clock() - start) * 1000)
    return times


if __name__ == "__main__":
    main()
