"""run_command throughput and memory: ``yes | head -c 1000000000``.

Prints wall time through run_command, the same pipeline run with subprocess
into /dev/null (the baseline, same run), their ratio, and the peak RSS growth
of this process over idle (goal: <= 50 MiB).

    .venv/bin/python bench/bench_command.py [BYTES]
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand


def status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


async def through_tool(command: str, workspace: Path) -> tuple[float, str, int]:
    chunks = 0

    def progress(_text: str) -> None:
        nonlocal chunks
        chunks += 1

    ctx = ToolContext(workspace=workspace, command_timeout=600, progress=progress)
    tool = RunCommand()
    start = time.perf_counter()
    result = await tool.run(tool.Args(command=command), ctx)
    return time.perf_counter() - start, result.output, chunks


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000_000
    command = f"yes | head -c {size}"
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        asyncio.run(through_tool("echo warm-up", workspace))
        start = time.perf_counter()
        subprocess.run(f"{command} > /dev/null", shell=True, check=True)
        baseline = time.perf_counter() - start
        exact = reset_peak()
        idle_rss, idle_hwm = status_kib("VmRSS"), status_kib("VmHWM")
        wall, output, progress_calls = asyncio.run(through_tool(command, workspace))
        peak = status_kib("VmHWM")
    growth = (peak - (idle_rss if exact else idle_hwm)) / 1024
    print(f"bytes:                 {size:,}")
    print(f"baseline (subprocess > /dev/null): {baseline:.2f} s")
    print(f"run_command:           {wall:.2f} s  (ratio {wall / baseline:.2f}x, "
          f"{size / wall / 1e6:.0f} MB/s)")
    print(f"progress callbacks:    {progress_calls}")
    print(f"result length:         {len(output):,} chars; last line: {output.splitlines()[-1]}")
    print(f"peak RSS growth:       {growth:.1f} MiB over idle "
          f"({'VmHWM reset' if exact else 'VmHWM not resettable: vs idle peak'}; goal <= 50)")


if __name__ == "__main__":
    main()
