"""Cost as the work grows: big trees and big stores (issue #28, item 7).

Parts (``--only`` picks some):
- ``find``: ``find_files "**/*.py"`` (in process, the tool's own ``run``) against
  ``fdfind -g '*.py'`` on trees of ``--files`` sizes (``apt-get install fd-find``);
- ``index``: the sandbox's secrets/settings index in a fresh process (a one-shot's
  first command): cold (no persisted copy), warm (persisted by an earlier run),
  and the same walk done twice in one process, against ``bwrap --ro-bind / / true``;
- ``sessions``: ``ai sessions list`` with ``--sessions`` sessions in the store;
- ``resume``: ``Store.load_messages`` of a session of ``--turns`` turns, all but
  the last behind a compaction checkpoint, against one of 10 turns;
- ``exit``: Enter on ``/exit`` to the process's end, a REPL on a litellm model.

``--base DIR`` (a ``git archive main`` tree) runs the same parts against it in the
same run (before/after). Trees and stores are built once in ``--work`` (default: a
temp dir) and kept there when given, so a 1M-file tree is built once.

Run: .venv/bin/python bench/bench_scale.py [--files 10000,100000] [--sessions 50000]
       [--turns 5000] [--base DIR] [--work DIR] [--only find,index,sessions,resume,exit]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import AI, home_env

FILES_PER_DIR = 20
FANOUT = 8


def build_tree(root: Path, files: int) -> None:
    """``files`` files, 20 to a directory (directory ``i``'s parent is ``i // 8``: a
    tree 8 wide), a quarter ``.py``; a ``.gitignore`` ignoring ``*.log``; a secret
    every 1,000 files. Built once (a marker file says so)."""
    if (root / ".built").exists():
        return
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    folders = [root]
    for made in range(0, files, FILES_PER_DIR):
        index = made // FILES_PER_DIR
        if index >= len(folders):
            folders.append(folders[(index - 1) // FANOUT] / f"d{(index - 1) % FANOUT}")
            folders[index].mkdir()
        for i in range(min(FILES_PER_DIR, files - made)):
            ext = (".py", ".txt", ".log", ".md")[i % 4]
            name = ".env" if (made + i) % 1000 == 999 else f"f{i}{ext}"
            with open(folders[index] / name, "w") as f:
                f.write("x")
    (root / ".built").write_text(str(files))


def median_run(argv: list[str], rounds: int, env: dict[str, str] | None = None) -> float:
    """Median wall seconds of ``argv`` (its output discarded)."""
    return median_wall_cpu(argv, rounds, env)[0]


def median_wall_cpu(argv: list[str], rounds: int,
                    env: dict[str, str] | None = None) -> tuple[float, float]:
    """Median wall and CPU (user + system) seconds of ``argv``: on a shared machine
    the wall time is mostly waiting for a core, the CPU time is the program's."""
    walls, cpus = [], []
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


FIND_SNIPPET = """
import asyncio, sys, time
from pathlib import Path
from swebash_py.tools.base import ToolContext
from swebash_py.tools.find import FindFiles
tool = FindFiles()
ctx = ToolContext(workspace=Path(sys.argv[1]), command_timeout=600.0)
args = tool.Args.parse({"pattern": "**/*.py", "limit": 200})
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
                         timeout=1800, check=True, cwd=tree)
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


INDEX_SNIPPET = """
import sys, time
from pathlib import Path
from swebash_py.sandbox import pathindex
t = time.perf_counter()
pathindex.find([Path(sys.argv[1])])
print(time.perf_counter() - t)
"""


def index_time(tree: Path, source: str, env: dict[str, str]) -> float:
    out = subprocess.run([sys.executable, "-c", INDEX_SNIPPET, str(tree)],
                         env={**env, "PYTHONPATH": source}, capture_output=True, text=True,
                         timeout=1800, check=True, cwd=tree)
    return float(out.stdout.split()[-1])


def bench_index(work: Path, sizes: list[int], sources: dict[str, str],
                env: dict[str, str]) -> None:
    bwrap = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
    alone = median_run(bwrap, 9)
    print(f"first sandboxed command's index walk, fresh process (bwrap alone "
          f"{alone * 1000:.0f} ms)")
    for size in sizes:
        tree = work / f"tree{size}"
        build_tree(tree, size)
        line = f"  {size:>9,} files:"
        for name, source in sources.items():
            shutil.rmtree(work / "home" / "pathindex", ignore_errors=True)  # SWEBASH_HOME
            cold = index_time(tree, source, env)
            warm = statistics.median(index_time(tree, source, env) for _ in range(3))
            line += f"  {name}: cold {cold * 1000:7.0f} ms, next run {warm * 1000:6.0f} ms"
        print(line, flush=True)


def build_store(path: Path, sessions: int) -> None:
    """``sessions`` sessions with ids made at distinct times (one turn in the last)."""
    if path.exists():
        return
    from swebash_py.store import Store
    from swebash_py.store.ids import uuid7

    with Store(path) as store:
        sid = store.create_session("m", "/w", "last")
        store.begin_turn(sid, "hello")
        start = time.time() - sessions
        rows = [(uuid7(start + i), start + i, start + i) for i in range(sessions - 1)]
        with store._write() as db:
            db.executemany("INSERT INTO sessions (id, title, created, updated, model, cwd)"
                           " VALUES (?, 'a title', ?, ?, 'm', '/w')", rows)


def bench_sessions(work: Path, count: int, sources: dict[str, str],
                   env: dict[str, str]) -> None:
    home = work / f"store{count}"
    build_store(home / "data" / "sessions.db", count)
    store_env = {**env, "SWEBASH_HOME": str(home / "data")}
    line = f"ai sessions list, {count:,} sessions:"
    for name, source in sources.items():
        wall, cpu = median_wall_cpu([AI, "sessions", "list"], 5,
                                    {**store_env, "PYTHONPATH": source})
        line += f"  {name} {wall * 1000:6.0f} ms wall, {cpu * 1000:4.0f} ms CPU"
    wall, cpu = median_wall_cpu([sys.executable, "-c", "pass"], 5)
    print(line + f"  (python -c pass: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU)",
          flush=True)


RESUME_SNIPPET = """
import sys, time
from pathlib import Path
from swebash_py.store import Store
with Store(Path(sys.argv[1])) as store:
    sid = store.latest_session()
    samples = []
    for _ in range(5):
        t = time.perf_counter()
        store.load_messages(sid)
        samples.append(time.perf_counter() - t)
samples.sort()
print(samples[2])
"""


def build_long_session(path: Path, turns: int) -> None:
    """One session of ``turns`` turns (a question, a tool call and its result, an
    answer each), compacted before the last one."""
    if path.exists():
        return
    from swebash_py.engine.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from swebash_py.store import Store

    with Store(path) as store:
        sid = store.create_session("m", "/w", "long")
        for n in range(1, turns + 1):
            turn = store.begin_turn(sid, f"question {n}")
            store.add_block(turn, ToolUseBlock(f"c{n}", "read_file", '{"path": "a.py"}'))
            store.add_block(turn, ToolResultBlock(f"c{n}", "read_file", "x = 1\n" * 40))
            store.add_block(turn, TextBlock(f"answer {n} " * 20))
            if n == turns - 1:
                store.add_checkpoint(turn, [Message.user("[Summary] all of it")])


def bench_resume(work: Path, turns: int, sources: dict[str, str],
                 env: dict[str, str]) -> None:
    print(f"load_messages behind a checkpoint (ai -c), 10 vs {turns:,} turns")
    for name, source in sources.items():
        line = f"  {name}:"
        for size in (10, turns):
            db = work / f"long{size}.db"
            build_long_session(db, size)
            out = subprocess.run([sys.executable, "-c", RESUME_SNIPPET, str(db)],
                                 env={**env, "PYTHONPATH": source}, capture_output=True,
                                 text=True, timeout=600, check=True, cwd=work)
            line += f"  {size:>6,} turns {float(out.stdout.split()[-1]) * 1000:7.1f} ms"
        print(line, flush=True)


def exit_time(env: dict[str, str], wait: float) -> float:
    """Seconds from Enter on a typed ``/exit`` to the end of the process, ``wait``
    seconds after the prompt of a REPL on a litellm model (no turn)."""
    import pexpect

    child = pexpect.spawn(AI, ["-m", "gemini/gemini-2.0-flash"], env=env, encoding="utf-8",
                          timeout=60, dimensions=(40, 100))
    child.expect("/help for commands")
    child.expect("swebash>")
    time.sleep(wait)
    child.send("/exit")
    time.sleep(0.3)  # the keys are handled; then time the Enter
    start = time.perf_counter()
    child.send("\r")
    child.expect(pexpect.EOF)
    return time.perf_counter() - start


def bench_exit(work: Path, sources: dict[str, str], env: dict[str, str]) -> None:
    print("leaving the REPL (litellm model; /exit typed, Enter timed), median of 3")
    for wait in (0.5, 3.0):
        line = f"  {wait:3.1f} s after the prompt:"
        for name, source in sources.items():
            run_env = {**env, "PYTHONPATH": source, "GEMINI_API_KEY": "x",
                       "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1"}
            took = statistics.median(exit_time(run_env, wait) for _ in range(3))
            line += f"  {name} {took * 1000:6.0f} ms"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default="10000,100000")
    parser.add_argument("--sessions", type=int, default=50_000)
    parser.add_argument("--turns", type=int, default=5_000)
    parser.add_argument("--base", help="another source tree (holding swebash_py/)")
    parser.add_argument("--work", help="where trees and stores are built (kept)")
    parser.add_argument("--only", default="find,index,sessions,resume,exit")
    opts = parser.parse_args()
    parts = set(opts.only.split(","))
    sources = {"this": str(Path(__file__).resolve().parents[1])}
    if opts.base:
        sources["base"] = opts.base
    work = Path(opts.work) if opts.work else Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    # the cwd is not on a snippet's path (``cwd=``), so PYTHONPATH picks the tree;
    # byte code is written, as for an installed package
    env = {k: v for k, v in home_env(work / "home").items() if k != "PYTHONDONTWRITEBYTECODE"}
    try:
        sizes = [int(s) for s in opts.files.split(",")]
        if "find" in parts:
            bench_find(work, sizes, sources, env)
        if "index" in parts:
            bench_index(work, sizes, sources, env)
        if "sessions" in parts:
            bench_sessions(work, opts.sessions, sources, env)
        if "resume" in parts:
            bench_resume(work, opts.turns, sources, env)
        if "exit" in parts:
            bench_exit(work, sources, env)
    finally:
        if not opts.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
