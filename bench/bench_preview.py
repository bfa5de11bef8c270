"""What a preview costs: per command, preview (overlay + bwrap, change set read)
against the plain workspace-write sandbox, for ``true`` and for a small write;
then preview + apply (recorded for /undo) against a direct run, and the undo,
for a mixed command on a small tree and for a write to a hard-linked file;
then reading and applying 10,000 created files (and undoing them), and a
200 MB file appended to.

    .venv/bin/python bench/bench_preview.py [RUNS]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from swebash_py.checkpoints.flow import last_turn, take_back
from swebash_py.engine.messages import TextBlock
from swebash_py.preview.checkpoint import StoreJournal
from swebash_py.preview.run import run_preview
from swebash_py.sandbox import overlay, runner
from swebash_py.sandbox.policy import SandboxPolicy
from swebash_py.store import Store
from swebash_py.store.recorder import StoreRecorder


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


def small_tree(ws: Path) -> None:
    (ws / "tree" / "sub").mkdir(parents=True)
    for i in range(50):
        (ws / "tree" / "sub" / f"f{i}.txt").write_text(f"line {i}\n" * 20)
    (ws / "a.txt").write_text("alpha\n")
    (ws / "b.txt").write_text("b\n")
    os.link(ws / "b.txt", ws / "b.hard")


async def applied_and_undone(ws: Path, command: str) -> tuple[float, float]:
    """Preview + apply recorded in a turn (ms), then /undo of that turn (ms)."""
    store = Store(ws.parent / f"db-{ws.name}" / "sessions.db")
    recorder = StoreRecorder(store, "m", str(ws), None)
    recorder.begin_turn("bench")
    recorder.add_block(TextBlock("x"))
    start = time.perf_counter()
    found = await run_preview(["/bin/sh", "-c", command], SandboxPolicy("workspace-write", ws),
                              timeout=300)
    journal = StoreJournal(recorder, [ws])
    found.apply(journal)
    journal.commit("run_command")
    applied = ms(start)
    recorder.finish_turn("stop", {}, None)
    start = time.perf_counter()
    back = last_turn(store, recorder.session_id or "")
    assert back is not None
    await take_back(store, back, ws, lambda _line: None, None)
    return applied, ms(start)


async def per_apply(top: Path, runs: int) -> None:
    for label, command in (
            ("mixed", "echo x >> a.txt && rm -r tree/sub && mkdir -p n/m && ln -s a.txt l "
                      "&& chmod 600 b.txt"),
            ("hard-link write", "echo more >> b.txt")):
        plain, prev, undo = [], [], []
        for i in range(runs):
            ws = top / f"{label[:5]}-{i}"
            ws.mkdir()
            small_tree(ws)
            other = top / f"{label[:5]}-{i}-direct"
            other.mkdir()
            small_tree(other)
            plain.append(await direct(other, command))
            applied, undone = await applied_and_undone(ws, command)
            prev.append(applied)
            undo.append(undone)
        a, b, c = (statistics.median(x) for x in (plain, prev, undo))
        print(f"{label:<15} direct {a:7.1f} ms   preview+apply {b:7.1f} ms   overhead "
              f"{b - a:+7.1f} ms   undo {c:6.1f} ms   (median of {runs})")


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
    undo_ws = ws.parent / "undo-many"
    undo_ws.mkdir()
    applied, undone = await applied_and_undone(undo_ws, many)
    print(f"10,000 files recorded for /undo: preview + apply + record {applied:7.0f} ms, "
          f"undo {undone:7.0f} ms")
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
        top = ws.parent / f"{ws.name}-apply"
        top.mkdir()
        asyncio.run(per_apply(top, max(3, runs // 2)))
        asyncio.run(bulk(ws))
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(ws.parent / f"{ws.name}-apply", ignore_errors=True)
        shutil.rmtree(ws.parent / "undo-many", ignore_errors=True)


if __name__ == "__main__":
    main()
