"""Cost as the work grows: big trees and big stores (issue #28, item 7).

Parts (``--only`` picks some):
- ``find``: ``find_files "**/*.py"`` (in process, the tool's own ``run``) against
  ``fdfind -g '*.py'`` on trees of ``--files`` sizes (``apt-get install fd-find``);
- ``index``: the sandbox's secrets/settings index in a fresh process (a one-shot's
  first command): cold (no persisted copy), warm (persisted by an earlier run),
  and the same walk done twice in one process, against ``bwrap --ro-bind / / true``;
- ``sessions``: ``ai sessions list`` with ``--sessions`` sessions in the store;
- ``resume``: ``Store.load_messages`` of a session of ``--turns`` turns, all but
  the last behind a compaction checkpoint, against one of 10 turns.

``--base DIR`` (a ``git archive main`` tree) runs the same parts against it in the
same run (before/after). Trees and stores are built once in ``--work`` (default: a
temp dir) and kept there when given, so a 1M-file tree is built once.

Run: .venv/bin/python bench/bench_scale.py [--files 10000,100000] [--sessions 50000]
       [--turns 5000] [--base DIR] [--work DIR] [--only find,index,sessions,resume]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import AI, home_env

FILES_PER_DIR = 40
DIRS_PER_DIR = 8


def build_tree(root: Path, files: int) -> None:
    """``files`` files in directories of 40 (8 subdirectories each), a quarter
    ``.py``; a ``.gitignore`` ignoring ``*.log``; a secret every 1,000 files."""
    if (root / ".built").exists():
        return
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    made, queue = 0, [root]
    while made < files:
        folder = queue.pop(0)
        for d in range(DIRS_PER_DIR):
            sub = folder / f"d{d}"
            sub.mkdir(exist_ok=True)
            queue.append(sub)
        for i in range(min(FILES_PER_DIR, files - made)):
            ext = (".py", ".txt", ".log", ".md")[i % 4]
            name = ".env" if (made + i) % 1000 == 999 else f"f{i}{ext}"
            with open(folder / name, "w") as f:
                f.write("x")
        made += FILES_PER_DIR
    (root / ".built").write_text(str(files))


def median_run(argv: list[str], rounds: int, env: dict[str, str] | None = None) -> float:
    """Median wall seconds of ``argv`` (its output discarded)."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True, env=env)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


FIND_SNIPPET = """
import asyncio, sys, time
from pathlib import Path
from swebash_py.tools.base import ToolContext
from swebash_py.tools.find import FindFiles
tool = FindFiles()
ctx = ToolContext(workspace=Path(sys.argv[1]), command_timeout=600.0)
args = tool.Args.model_validate({"pattern": "**/*.py", "limit": 200})
samples = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    asyncio.run(tool.run(args, ctx))
    samples.append(time.perf_counter() - t)
samples.sort()
print(samples[len(samples) // 2])
"""


def find_time(tree: Path, source: str, env: dict[str, str], rounds: int) -> float:
    out = subprocess.run([sys.executable, "-c", FIND_SNIPPET, str(tree), str(rounds)],
                         env={**env, "PYTHONPATH": source}, capture_output=True, text=True,
                         timeout=1800, check=True)
    return float(out.stdout.split()[-1])


def bench_find(work: Path, sizes: list[int], sources: dict[str, str],
               env: dict[str, str]) -> None:
    fd = shutil.which("fdfind") or shutil.which("fd")
    print("find_files '**/*.py' (median, warm cache)")
    for size in sizes:
        tree = work / f"tree{size}"
        build_tree(tree, size)
        rounds = 5 if size <= 100_000 else 1
        line = f"  {size:>9,} files:"
        base = None
        if fd:
            base = median_run([fd, "-g", "*.py", str(tree)], rounds)
            line += f"  fd {base * 1000:8.0f} ms"
        for name, source in sources.items():
            took = find_time(tree, source, env, rounds)
            ratio = f" ({took / base:4.1f}x fd)" if base else ""
            line += f"  {name} {took * 1000:8.0f} ms{ratio}"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default="10000,100000")
    parser.add_argument("--sessions", type=int, default=50_000)
    parser.add_argument("--turns", type=int, default=5_000)
    parser.add_argument("--base", help="another source tree (holding swebash_py/)")
    parser.add_argument("--work", help="where trees and stores are built (kept)")
    parser.add_argument("--only", default="find,index,sessions,resume")
    opts = parser.parse_args()
    parts = set(opts.only.split(","))
    sources = {"this": str(Path(__file__).resolve().parents[1])}
    if opts.base:
        sources["base"] = opts.base
    work = Path(opts.work) if opts.work else Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    env = home_env(work / "home")
    try:
        if "find" in parts:
            bench_find(work, [int(s) for s in opts.files.split(",")], sources, env)
    finally:
        if not opts.work:
            shutil.rmtree(work, ignore_errors=True)
    _ = AI, os


if __name__ == "__main__":
    main()
