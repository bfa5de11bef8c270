"""Numbers for background commands, undo and web_fetch.

* a background command printing 1 GB: wall time, and the peak RSS growth of
  this process while ``command_output`` drains it (VmHWM reset first);
* undo of one turn that edited 100 files: time to plan and restore, through
  the real store and the real edit tool (a baseline: writing the 100 files);
* web_fetch of a 1 MB HTML page from 127.0.0.1: time, split into download and
  conversion (a baseline: the bare GET with httpx).

    .venv/bin/python bench/bench_capabilities.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_command import reset_peak, status_kib
from swebash_py.checkpoints.flow import last_turn, take_back
from swebash_py.engine.messages import TextBlock
from swebash_py.store import Store
from swebash_py.store.recorder import StoreRecorder
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand
from swebash_py.tools.edit import EditFile
from swebash_py.tools.fetch import WebFetch, render
from swebash_py.tools.jobs import CommandOutput


async def background_gb(workspace: Path) -> None:
    table = JobTable()
    ctx = ToolContext(workspace=workspace, jobs=table)
    exact = reset_peak()
    idle = status_kib("VmRSS") if exact else status_kib("VmHWM")
    start = time.perf_counter()
    started = await RunCommand().run(RunCommand.Args(
        command="head -c 1000000000 /dev/zero | tr '\\0' a", background=True), ctx)
    job_id = started.metadata["id"]
    reads = 0
    while True:
        result = await CommandOutput().run(CommandOutput.Args(id=job_id, wait=60), ctx)
        reads += 1
        if not result.metadata["running"]:
            break
    wall = time.perf_counter() - start
    growth = (status_kib("VmHWM") - idle) / 1024
    table.close()
    print(f"background 1 GB:      {wall:.2f} s, {reads} command_output call(s), "
          f"result {len(result.output):,} chars, peak RSS growth {growth:.1f} MiB")


async def undo_100(workspace: Path) -> None:
    store = Store(workspace / "db" / "sessions.db")
    recorder = StoreRecorder(store, "m", str(workspace), None)
    ctx = ToolContext(workspace=workspace, checkpoints=recorder)
    for i in range(100):
        (workspace / f"f{i:03}.py").write_text(f"value = {i}\n" + "x = 1\n" * 200)
    recorder.begin_turn("edit them all")
    recorder.add_block(TextBlock("ok"))
    start = time.perf_counter()
    for i in range(100):
        await EditFile().run(EditFile.Args(path=f"f{i:03}.py", old_text=f"value = {i}\n",
                                           new_text=f"value = {i + 1}\n"), ctx)
    edits = time.perf_counter() - start
    recorder.finish_turn("stop", {}, None)
    start = time.perf_counter()
    back = last_turn(store, recorder.session_id or "")
    assert back is not None

    async def yes(_question: str) -> bool:
        return True
    outcome = await take_back(store, back, workspace, lambda _t: None, yes)
    took = time.perf_counter() - start
    assert outcome is not None and len(outcome.restored) == 100
    print(f"undo of 100 edits:    {took:.2f} s (the 100 edits themselves, recorded: "
          f"{edits:.2f} s)")
    store.close()


async def fetch_1mb(workspace: Path) -> None:
    from tests.tools.webpages import Site, _Handler

    server = Site(("127.0.0.1", 0), _Handler)
    server.hits = []
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = server.url + "/large.html"
    async with httpx.AsyncClient(trust_env=False) as client:
        start = time.perf_counter()
        raw = (await client.get(url)).content
        bare = time.perf_counter() - start
    tool = WebFetch()
    ctx = ToolContext(workspace=workspace)
    args = WebFetch.Args(url=url)
    render_start = time.perf_counter()
    tool.preview(args, ctx)
    result = await tool.run(args, ctx)
    total = time.perf_counter() - render_start
    from swebash_py.tools.fetch import Fetched

    start = time.perf_counter()
    render(Fetched(url, 200, "text/html", "utf-8", raw, len(raw), False))
    convert = time.perf_counter() - start
    server.shutdown()
    print(f"web_fetch 1 MB page:  {total:.2f} s ({len(raw):,} bytes; conversion to Markdown "
          f"{convert:.2f} s; bare httpx GET {bare:.3f} s); result {len(result.output):,} chars")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(background_gb(Path(tmp)))
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(undo_100(Path(tmp)))
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(fetch_1mb(Path(tmp)))


if __name__ == "__main__":
    main()
