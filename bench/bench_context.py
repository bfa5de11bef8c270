"""Preparing a request (ContextManager.fit) for a 2,000-message session.

Prints the first (cold) call and the per-request time after it, while the
session grows by one tool round (2 messages) per request, as in a tool loop:

* ``no compaction``: a window large enough for everything (pure counting);
* ``compaction``: a 32k window, so the first call summarises (instant fake
  summarizer) and later calls work on the compacted history;
* baseline: tokenizing the whole history with tiktoken (cl100k) per request,
  when tiktoken and litellm's bundled encodings are available.

Goal: <= 20 ms per request after the first.  Run: .venv/bin/python bench/bench_context.py
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import statistics
import time
from pathlib import Path

from swebash_py.engine.context import ContextManager
from swebash_py.engine.messages import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

SYSTEM = "You are a shell assistant. " * 60
ROUNDS_PER_TURN = 4


def payload(rng: random.Random) -> str:
    words = ["def", "return", "self.value", "(x)", "import os", "42", "\n", "    ", "{", "}"]
    return " ".join(rng.choice(words) for _ in range(rng.randint(20, 400)))


def tool_round(rng: random.Random, n: int) -> list[Message]:
    use = ToolUseBlock(f"c{n}", "read_file", json.dumps({"path": f"src/f{n}.py"}))
    return [Message("assistant", [TextBlock(f"Looking at f{n}."), use]),
            Message("user", [ToolResultBlock(use.id, use.name, payload(rng))])]


def build(messages: int, rng: random.Random) -> list[Message]:
    out: list[Message] = []
    n = 0
    while len(out) < messages:
        if n % ROUNDS_PER_TURN == 0:
            if out and out[-1].role == "user":
                out.append(Message("assistant", [TextBlock("Done.")]))
            out.append(Message.user(f"request {n}: what does f{n}.py do?"))
        out += tool_round(rng, n)
        n += 1
    return out


async def summarize(msgs: list[Message]) -> str:
    return f"summary of {len(msgs)} messages"


async def run(label: str, window: int, requests: int = 200) -> None:
    rng = random.Random(1)
    history = build(2000, rng)
    cm = ContextManager(summarize)
    t0 = time.perf_counter()
    result = await cm.fit(SYSTEM, history, 500, window, 4000)
    first = (time.perf_counter() - t0) * 1000
    history = result.messages
    times = []
    compactions = 0
    for n in range(requests):
        history = [*history, *tool_round(rng, 10_000 + n)]
        t = time.perf_counter()
        result = await cm.fit(SYSTEM, history, 500, window, 4000)
        times.append((time.perf_counter() - t) * 1000)
        compactions += result.compacted
        history = result.messages
    print(f"{label:<16} first {first:8.2f} ms   after: median {statistics.median(times):6.2f} ms"
          f"   p95 {sorted(times)[int(len(times) * 0.95)]:6.2f} ms   max {max(times):6.2f} ms"
          f"   ({len(history)} msgs at the end, {compactions} more compactions)")


def baseline(requests: int = 20) -> None:
    if importlib.util.find_spec("tiktoken") is None or (spec := importlib.util.find_spec(
            "litellm")) is None or not spec.submodule_search_locations:
        print("baseline         (tiktoken not available)")
        return
    cache = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache))
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    history = build(2000, random.Random(1))
    times = []
    for _ in range(requests):
        t = time.perf_counter()
        sum(len(enc.encode(b.text if isinstance(b, TextBlock) else getattr(b, "content", "")
                           or getattr(b, "arguments", ""))) for m in history for b in m.blocks)
        times.append((time.perf_counter() - t) * 1000)
    print(f"{'tiktoken/request':<16} median {statistics.median(times):8.2f} ms"
          "   (re-tokenizing the whole history each request)")


def main() -> None:
    print("fit() on a 2,000-message session")
    asyncio.run(run("no compaction", 2_000_000))
    asyncio.run(run("compaction", 32_768))
    baseline()


if __name__ == "__main__":
    main()
