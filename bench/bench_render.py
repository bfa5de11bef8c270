"""Streaming-markdown render speed: file vs pty, 80k vs 20k chars, vs a naive re-render.

    .venv/bin/python bench/bench_render.py

An answer generated deterministically (headings, paragraphs, lists, code fences,
tables) is fed in 4-character BlockDelta events through the terminal Renderer
writing (a) to a file-backed Console with force_terminal=True and (b) into a
real pseudo-terminal whose master side a thread drains. The naive baseline
re-renders the whole Markdown so far on every chunk (what a Live(Markdown(text))
does); it is measured on evenly spaced samples and summed over all chunks.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.markdown import Markdown

from swebash_py.events import BlockDelta, BlockStart, BlockStop, TurnComplete
from swebash_py.render.console import Renderer

WIDTH, HEIGHT, CHUNK = 100, 40, 4
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while",
         "parsing", "streamed", "tokens", "render", "markdown", "blocks", "function",
         "return", "value", "error", "config", "terminal"]


def answer(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)

    def sentence() -> str:
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
        if rng.random() < 0.3:
            words[rng.randrange(len(words))] = f"`{rng.choice(WORDS)}()`"
        if rng.random() < 0.3:
            words[rng.randrange(len(words))] = f"**{rng.choice(WORDS)}**"
        return " ".join(words).capitalize() + "."

    parts: list[str] = []
    n = 0
    while n < size:
        kind = rng.choice(["h", "p", "p", "p", "list", "code", "table"])
        if kind == "h":
            part = "#" * rng.randint(1, 3) + " " + sentence()[:-1]
        elif kind == "p":
            part = " ".join(sentence() for _ in range(rng.randint(2, 6)))
        elif kind == "list":
            part = "\n".join(f"- {sentence()}" for _ in range(rng.randint(2, 6)))
        elif kind == "code":
            body = "\n".join(f"    x{i} = {rng.choice(WORDS)}({i})"
                             for i in range(rng.randint(3, 12)))
            part = f"```python\ndef f():\n{body}\n\n    return x0\n```"
        else:
            rows = "\n".join(f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} |" for _ in range(4))
            part = f"| name | value |\n|---|---:|\n{rows}"
        parts.append(part)
        n += len(part) + 2
    return "\n\n".join(parts)[:size].rstrip() + "\n"


def feed(console: Console, text: str) -> float:
    renderer = Renderer(console)
    events = [BlockDelta(index=0, kind="text", text=text[i:i + CHUNK])
              for i in range(0, len(text), CHUNK)]
    start = time.perf_counter()
    renderer.handle(BlockStart(index=0, kind="text"))
    for event in events:
        renderer.handle(event)
    renderer.handle(BlockStop(index=0, kind="text", content=text))
    renderer.handle(TurnComplete(stop_reason="stop"))
    console.file.flush()
    return time.perf_counter() - start


def to_file(text: str, path: Path) -> float:
    with path.open("w", encoding="utf-8") as out:
        return feed(_console(out), text)


def to_pty(text: str) -> float:
    master, slave = os.openpty()
    drained = [0]

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            drained[0] += len(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    with os.fdopen(slave, "w", encoding="utf-8", closefd=True) as out:
        seconds = feed(_console(out), text)
    reader.join(timeout=5)
    os.close(master)
    return seconds


def _console(out: TextIO) -> Console:
    return Console(file=out, width=WIDTH, height=HEIGHT, force_terminal=True,
                   color_system="truecolor", legacy_windows=False)


def naive(text: str, samples: int = 40) -> float:
    """Seconds to re-render Markdown(text so far) once per chunk, estimated from samples."""
    console = Console(file=open(os.devnull, "w"), width=WIDTH, force_terminal=True,  # noqa: SIM115
                      color_system="truecolor")
    chunks = range(CHUNK, len(text) + CHUNK, CHUNK)
    picks = [chunks[i * (len(chunks) - 1) // (samples - 1)] for i in range(samples)]
    total = 0.0
    for end in picks:
        start = time.perf_counter()
        console.print(Markdown(text[:end]))
        total += time.perf_counter() - start
    return total / samples * len(chunks)


def main() -> None:
    big, small = answer(80_000), answer(20_000)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / "bench_render.out"
    to_file(small, tmp)  # warm-up (imports, pygments lexers)
    results = {}
    for name, text in (("80k", big), ("20k", small)):
        results[f"file {name}"] = min(to_file(text, tmp) for _ in range(2))
        results[f"pty {name}"] = min(to_pty(text) for _ in range(2))
    for key, seconds in results.items():
        chunks = len(big if "80k" in key else small) // CHUNK
        print(f"{key:10s} {seconds:7.3f} s  ({chunks} chunks)")
    print(f"pty/file 80k: {results['pty 80k'] / results['file 80k']:.2f}x (goal <= 1.5x)")
    print(f"pty/file 20k: {results['pty 20k'] / results['file 20k']:.2f}x")
    print(f"80k/20k file: {results['file 80k'] / results['file 20k']:.2f}x (goal <= 4.5x)")
    print(f"80k/20k pty:  {results['pty 80k'] / results['pty 20k']:.2f}x (goal <= 4.5x)")
    fence = "```python\n" + "".join(f"x{i} = {i}\n" for i in range(8000))
    f80, f20 = (to_file(fence[:n] + "```\n", tmp) for n in (80_000, 20_000))
    print(f"one code fence 80k/20k: {f80:.3f} s / {f20:.3f} s = {f80 / f20:.2f}x")
    naive_small = naive(small)
    print(f"naive re-render per chunk, 20k (estimated): {naive_small:.1f} s "
          f"= {naive_small / results['file 20k']:.0f}x ours")
    tmp.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
