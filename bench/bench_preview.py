"""What a preview costs: per command, preview (overlay + bwrap, change set read)
against the plain workspace-write sandbox, for ``true`` and for a small write;
then reading and applying 10,000 created files, and a 200 MB file appended to.

    .venv/bin/python bench/bench_preview.py [RUNS]
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from swebash_py.preview.run import run_preview
from swebash_py.sandbox import overlay, runner
from swebash_py.sandbox.policy import SandboxPolicy


def ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


async def direct(ws: Path, command: str) -> float:
    start = time.perf_counter()
    await runner.run(["/bin/sh", "-c", command], SandboxPolicy("workspace-write", ws),
                     timeout=120)
    return ms(start)


async def previewed(ws: Path, command: str) -> float:
    start = time.perf_counter()
    found = await run_preview(["/bin/sh", "-c", command], SandboxPolicy("workspace-write", ws),
                              timeout=120)
    found.discard()
    return ms(start)


async def per_command(ws: Path, runs: int) -> None:
    for label, command in (("true", "true"), ("small write", "echo x > out.txt")):
        await direct(ws, command)
        await previewed(ws, command)  # warm: probes, imports
        plain = [await direct(ws, command) for _ in range(runs)]
        prev = [await previewed(ws, command) for _ in range(runs)]
        a, b = statistics.median(plain), statistics.median(prev)
        print(f"{label:<12} direct {a:7.1f} ms   preview {b:7.1f} ms   overhead {b - a:+7.1f} ms"
              f"   (median of {runs})")


async def bulk(ws: Path) -> None:
    many = ("mkdir made && cd made && i=0; while [ $i -lt 10000 ]; do echo $i > f$i; "
            "i=$((i+1)); done")
    other = ws / "direct"
    other.mkdir()
    plain = await direct(other, many)
    shutil.rmtree(other)
    print(f"10,000 files: direct run {plain:7.0f} ms (for scale: file creation on this disk)")
    start = time.perf_counter()
    found = await run_preview(["/bin/sh", "-c", many], SandboxPolicy("workspace-write", ws),
                              timeout=300)
    run_and_read = ms(start)
    start = time.perf_counter()
    found.apply()
    print(f"10,000 files: preview run + change set {run_and_read:7.0f} ms, "
          f"apply {ms(start):7.0f} ms ({len(found.changes):,} changes)")
    with open(ws / "big.bin", "wb") as fh:
        block = b"\1" * (1 << 20)
        for _ in range(200):
            fh.write(block)
    start = time.perf_counter()
    found = await run_preview(["/bin/sh", "-c", "echo tail >> big.bin"],
                              SandboxPolicy("workspace-write", ws), timeout=300)
    run_and_read = ms(start)
    start = time.perf_counter()
    found.apply()
    print(f"200 MB append: preview run + change set {run_and_read:7.0f} ms, "
          f"apply {ms(start):7.0f} ms")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    found = overlay.support()
    if not found.ok:
        print(f"no previews here: {found.reason}")
        return
    print(f"previews: {found.how}")
    ws = Path(tempfile.mkdtemp(prefix="bench-preview-"))
    try:
        asyncio.run(per_command(ws, runs))
        asyncio.run(bulk(ws))
    finally:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    main()
