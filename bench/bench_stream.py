"""Streaming speed: DirectBackend against a bare standard-library reader.

Starts ``tests/fakeprovider.py`` as a separate process serving a markdown answer
in 4-character chunks (20,000 and 80,000 characters: 5,000 and 20,000 events),
then times, each in its own subprocess and several runs, (a) ``stdlib_reader.py``
and (b) ``DirectBackend`` consuming every event and writing the text to a file.
Prints medians of the stream time (request to last event) and of the whole
process, the direct/stdlib ratio (goal <= 2x) and the 20k -> 80k growth.

    .venv/bin/python bench/bench_stream.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, start_provider

SIZES = (20_000, 80_000)


def markdown(size: int) -> str:
    """A deterministic markdown answer of exactly ``size`` characters."""
    block = ("## Section {n}\n\nSome **bold** text, a [link](https://example.com/{n}) and "
             "`inline code`.\n\n- item one\n- item two with *emphasis*\n\n```python\n"
             "def f{n}(x):\n    return x * {n}\n```\n\n")
    parts: list[str] = []
    total, n = 0, 0
    while total < size:
        parts.append(block.format(n=n))
        total += len(parts[-1])
        n += 1
    return "".join(parts)[:size]


def start_server(size: int, tmp: Path) -> tuple[subprocess.Popen[str], str]:
    reply = {"text": markdown(size), "chunk_size": 4, "usage": [10, size // 4]}
    return start_provider({"replies": [reply], "repeat_last": True}, tmp)


def run_child(args: list[str], expected: int, out: Path) -> tuple[float, float]:
    """(stream seconds, whole-process seconds) of one reader run."""
    start = time.perf_counter()
    with out.open("w") as sink:
        done = subprocess.run([sys.executable, *args], stdout=sink, stderr=subprocess.PIPE,
                              text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("STREAM "))
    _, seconds, count = line.split()
    if int(count) != expected or len(out.read_text()) != expected:
        raise SystemExit(f"{args[0]} read {count} characters, expected {expected}")
    return float(seconds), wall


async def direct_reader(url: str) -> None:
    """The (b) child: stream through DirectBackend, text to stdout."""
    from swebash_py.engine.messages import Message
    from swebash_py.events import TextDelta
    from swebash_py.provider.base import ChatRequest
    from swebash_py.provider.direct import DirectBackend

    start = time.perf_counter()
    backend = DirectBackend("openai")
    request = ChatRequest(model="openai/m", messages=[Message.user("hi")], api_base=url)
    count, write = 0, sys.stdout.write
    async for event in backend.stream(request):
        if isinstance(event, TextDelta):
            write(event.text)
            count += len(event.text)
    sys.stdout.flush()
    print(f"STREAM {time.perf_counter() - start:.4f} {count}", file=sys.stderr)
    await backend.aclose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--direct-child", metavar="URL", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.direct_child:
        asyncio.run(direct_reader(args.direct_child))
        return
    readers = {"stdlib": ["bench/stdlib_reader.py"],
               "direct": ["bench/bench_stream.py", "--direct-child"]}
    medians: dict[tuple[str, int], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for size in SIZES:
            proc, url = start_server(size, tmp)
            try:
                for cmd in readers.values():  # warm-up run, not counted
                    run_child([*cmd, url], size, tmp / "out.txt")
                runs: dict[str, list[tuple[float, float]]] = {n: [] for n in readers}
                for _ in range(args.runs):  # alternate so both see the same machine load
                    for name, cmd in readers.items():
                        runs[name].append(run_child([*cmd, url], size, tmp / "out.txt"))
                for name, results in runs.items():
                    medians[name, size] = (statistics.median(r[0] for r in results),
                                           statistics.median(r[1] for r in results))
            finally:
                proc.terminate()
                proc.wait(10)
    report(medians)


def report(medians: dict[tuple[str, int], tuple[float, float]]) -> None:
    print(f"{'reader':<8} {'chars':>7} {'events':>7} {'stream s':>9} {'process s':>10}")
    for (name, size), (stream, wall) in sorted(medians.items(), key=lambda kv: kv[0][1]):
        print(f"{name:<8} {size:>7} {size // 4:>7} {stream:>9.3f} {wall:>10.3f}")
    for size in SIZES:
        (ds, dw), (ss, sw) = medians["direct", size], medians["stdlib", size]
        print(f"{size} chars: direct/stdlib  stream {ds / ss:.2f}x  process {dw / sw:.2f}x"
              "  (goal <= 2x)")
    for name in ("stdlib", "direct"):
        small, big = medians[name, SIZES[0]][0], medians[name, SIZES[1]][0]
        print(f"{name}: 20k -> 80k stream time grows {big / small:.2f}x (linear ~4x)")


if __name__ == "__main__":
    main()
