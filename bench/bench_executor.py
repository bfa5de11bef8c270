"""The streaming tool executor, measured (issue #3).

1. Four read-only calls of a tool that takes 1 s, from one reply: wall time
   of the tool phase against the 4 s they would take one after another.
2. A slowly streaming reply whose first call completes early: how long
   before the end of the stream the first read-only tool starts.
Run from the repository root: .venv/bin/python bench/bench_executor.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from swebash_py.events import BlockStop, ToolProgress
from tests.agent.helpers import make_agent
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply, ToolCall


async def parallel(fp: FakeProvider) -> None:
    calls = [ToolCall(f"c{i}", "peek", json.dumps({"label": str(i), "seconds": 1.0}))
             for i in range(4)]
    fp.queue(Reply(tool_calls=calls), Reply(text="done"))
    journal = Journal()
    agent = make_agent(fp, "openai", journal)
    async for _event in agent.run_turn("four reads"):
        pass
    starts = [t for kind, _, t in journal.entries if kind == "start"]
    ends = [t for kind, _, t in journal.entries if kind == "end"]
    phase = max(ends) - min(starts)
    print(f"4 read-only calls of 1 s: {phase:.2f} s (sequential would be 4.00 s; "
          f"ratio {phase / 1.0:.2f}x of one call)")


async def lead(fp: FakeProvider) -> None:
    calls = [ToolCall("c1", "peek", '{"label": "early"}'),
             ToolCall("c2", "peek", json.dumps({"label": "late " + "x" * 400}))]
    fp.queue(Reply(tool_calls=calls, chunk_size=4, delay=0.01), Reply(text="done"))
    agent = make_agent(fp, "anthropic", Journal())
    started = stream_end = None
    async for event in agent.run_turn("stream slowly"):
        now = time.monotonic()
        if isinstance(event, ToolProgress) and event.call_id == "c1" and event.status == "running":
            started = started or now
        if isinstance(event, BlockStop) and event.kind == "tool_use" and event.call_id == "c2":
            stream_end = now
    assert started is not None and stream_end is not None
    print(f"first read-only tool started {stream_end - started:.2f} s before the reply "
          "finished streaming")


async def main() -> None:
    with FakeProvider() as fp:
        await parallel(fp)
        await lead(fp)


if __name__ == "__main__":
    asyncio.run(main())
