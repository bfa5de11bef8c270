"""read_file on a 100 MB file: a slice from the middle, time and memory.

Memory must stay constant (the file is streamed, never read whole). Prints
the time to read 100 lines at the start (baseline) and from the middle, and
the peak RSS growth over idle for the middle slice.

    .venv/bin/python bench/bench_read.py [MEGABYTES]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from swebash_py.tools.base import ToolContext
from swebash_py.tools.files import ReadFile

sys.path.insert(0, str(Path(__file__).parent))
from bench_command import reset_peak, status_kib


def make_file(path: Path, megabytes: int) -> int:
    line = "x" * 90
    lines = megabytes * 1024 * 1024 // 100
    with path.open("w") as f:
        for i in range(lines):
            f.write(f"{i:08d} {line}\n")
    return lines


async def read(ctx: ToolContext, offset: int) -> tuple[float, str]:
    tool = ReadFile()
    start = time.perf_counter()
    result = await tool.run(tool.Args(path="big.txt", offset=offset, limit=100), ctx)
    return time.perf_counter() - start, result.output


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        lines = make_file(ws / "big.txt", megabytes)
        ctx = ToolContext(workspace=ws)
        base, _ = asyncio.run(read(ctx, 1))
        exact = reset_peak()
        idle_rss, idle_hwm = status_kib("VmRSS"), status_kib("VmHWM")
        mid, output = asyncio.run(read(ctx, lines // 2))
        peak = status_kib("VmHWM")
    growth = (peak - (idle_rss if exact else idle_hwm)) / 1024
    first = output.splitlines()[0].split("\t")[0].strip()
    print(f"file:                {megabytes} MiB, {lines:,} lines")
    print(f"first 100 lines:     {base * 1000:.1f} ms (baseline)")
    print(f"100 lines at {lines // 2:,}: {mid * 1000:.1f} ms (ratio {mid / base:.0f}x, "
          f"{megabytes / 2 / mid:.0f} MiB/s skipped); first line shown: {first}")
    print(f"peak RSS growth:     {growth:.2f} MiB over idle (constant: independent of file size)")


if __name__ == "__main__":
    main()
