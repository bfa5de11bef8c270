"""Streaming-markdown render speed: the whole `ai` process, plain vs rendered, two answers.

    .venv/bin/python bench/bench_render.py [--runs 3] [--profile DIR] [--base DIR]

Two deterministic answers, 20k and 80k characters, served in 4-character chunks
by the loopback provider (``tests/fakeprovider.py``): the *generated* one
(headings, paragraphs, lists, fences, tables) and a *code-heavy* one with a code
fence every few lines. For each, the stdlib reader (``stdlib_reader.py``, the
floor) and the installed ``ai`` run as whole processes, (a) with stdout
redirected to a file (plain output) and (b) in a pseudo-terminal whose master
side is drained (rendered Markdown, live tail), interleaved so all runs see the
same load. Printed per row: medians of CPU seconds (wall in brackets), the
rendered/plain ratio (goal <= 1.5x), one whole ``rich`` render of the same text
(CPU s; the floor for the pty run is about the plain run plus one render) and
what rendering added, counted in such renders; then 20k -> 80k growth (goal
<= 4.5x). ``--base DIR`` adds an A/B: the same ``ai`` importing ``swebash_py``
from DIR (``git archive REV swebash_py | tar -x -C DIR``). ``--profile DIR``
writes a cProfile of one rendered 80k run per answer. The in-process section
feeds the Renderer directly (no provider, no start-up) and estimates the naive
re-render-per-chunk cost.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import random
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.markdown import Markdown  # noqa: E402

from bench.common import start_provider  # noqa: E402
from swebash_py.events import BlockDelta, BlockStart, BlockStop, TurnComplete  # noqa: E402
from swebash_py.render.console import Renderer  # noqa: E402

AI = str(Path(sys.executable).parent / "ai")
WIDTH, HEIGHT, CHUNK = 100, 40, 4
SIZES = (20_000, 80_000)
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while",
         "parsing", "streamed", "tokens", "render", "markdown", "blocks", "function",
         "return", "value", "error", "config", "terminal"]


def answer(size: int, seed: int = 7) -> str:
    """The generated answer: a random mix of headings, paragraphs, lists, fences, tables."""
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


def code_heavy(size: int) -> str:
    """A code fence every few lines, between headings, short paragraphs and lists."""
    langs = [("python", "print(value_{n})"), ("sh", "grep -n 'error {n}' build.log | head"),
             ("json", '{{"step": {n}, "ok": true}}'), ("rust", "let x{n} = f({n})?;")]
    parts: list[str] = []
    total, n = 0, 0
    while total < size:
        lang, line = langs[n % len(langs)]
        part = (f"## Step {n}\n\nRun the check, then read **line {n}** of the `log`.\n\n"
                f"```{lang}\n{line.format(n=n)}\n```\n\n"
                f"- first point {n}\n- second point {n}\n\n")
        parts.append(part)
        total += len(part)
        n += 1
    return "".join(parts)[:size].rstrip() + "\n"


ANSWERS: dict[str, Callable[[int], str]] = {"generated": answer, "code-heavy": code_heavy}


# ---------------------------------------------------------------- whole process


def start_server(text: str, tmp: Path) -> tuple[subprocess.Popen[str], str]:
    return start_provider({"replies": [{"text": text, "chunk_size": CHUNK}],
                           "repeat_last": True}, tmp)


def ai_env(home: Path) -> dict[str, str]:
    # Bytecode is cached as in a user's installation (the warm-up run writes it).
    drop = ("NO_COLOR", "FORCE_COLOR", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update({"SWEBASH_HOME": str(home), "SWEBASH_CONFIG": str(home / "config.toml"),
                "NO_PROXY": "127.0.0.1", "TERM": "xterm-256color",
                "COLUMNS": str(WIDTH), "LINES": str(HEIGHT)})
    return env


Run = tuple[float, float]  # (wall seconds, CPU seconds of the process: user + system)


def _reap(proc: subprocess.Popen[bytes], start: float, what: str) -> Run:
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{what} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def plain_run(argv: list[str], env: dict[str, str], out: Path) -> Run:
    """The whole process with stdout redirected to a file."""
    start = time.perf_counter()
    with out.open("w") as sink:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink,
                                stderr=subprocess.DEVNULL, env=env)
        return _reap(proc, start, f"{Path(argv[0]).name} (plain)")


def pty_run(argv: list[str], env: dict[str, str]) -> Run:
    """The whole process in a pseudo-terminal whose master side is drained."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, WIDTH, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True)
    os.close(slave)
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    if not os.read(master, 1 << 16):
                        break
                except OSError:  # EIO: every slave end closed
                    break
    finally:
        run = _reap(proc, start, f"{Path(argv[0]).name} (pty)")
        os.close(master)
    return run


def rich_render(text: str) -> float:
    """CPU seconds of one whole ``rich`` render of ``text`` (the floor above the plain run)."""
    with open(os.devnull, "w") as sink:
        console = Console(file=sink, width=WIDTH, force_terminal=True, color_system="truecolor")
        start = time.process_time()
        console.print(Markdown(text))
        return time.process_time() - start


Rows = dict[str, list[Run]]  # "reader plain", "reader pty", "ai plain", "ai pty" -> runs


def measure(text: str, runs: int, tmp: Path, ai: str, profile: Path | None,
            base: Path | None = None) -> Rows:
    """Each program in each mode ``runs`` times, interleaved so all see the same load.
    ``base``: also ``ai`` with the package imported from that directory (an A/B)."""
    server, url = start_server(text, tmp)
    env = ai_env(tmp)
    ai_argv = [ai, "-m", "openai/x", "--api-base", url, "write it"]
    programs = {"reader": ([sys.executable, str(ROOT / "bench" / "stdlib_reader.py"), url],
                           env),
                "ai": (ai_argv, env)}
    if base is not None:
        programs["base"] = (ai_argv, {**env, "PYTHONPATH": str(base)})
    rows: Rows = {f"{name} {mode}": [] for name in programs for mode in ("plain", "pty")}
    try:
        for argv, penv in programs.values():  # warm-up (and bytecode written)
            plain_run(argv, penv, tmp / "out.txt")
            pty_run(argv, penv)
        for _ in range(runs):
            for name, (argv, penv) in programs.items():
                rows[f"{name} plain"].append(plain_run(argv, penv, tmp / "out.txt"))
                if name != "reader" and (tmp / "out.txt").read_text() != text:
                    raise SystemExit(f"{name}'s plain output differs from the answer")
                rows[f"{name} pty"].append(pty_run(argv, penv))
        if profile is not None:
            pty_run([sys.executable, "-m", "cProfile", "-o", str(profile), ai,
                     *ai_argv[1:]], env)
    finally:
        server.terminate()
        server.wait(10)
    return rows


def whole_process(runs: int, profile: Path | None, ai: str = AI,
                  base: Path | None = None) -> None:
    print(f"whole process, loopback provider, {CHUNK}-char chunks, median of {runs} "
          "interleaved runs; CPU s of the process (user + system; steadier than wall "
          "on a busy machine), wall s in brackets:")
    print(f"{'answer':<11} {'chars':>6} {'reader file':>14} {'reader pty':>14} "
          f"{'ai file':>14} {'ai pty':>14} {'pty/file':>13} {'rich 1x':>7} "
          f"{'(pty-file)/rich':>15}" + (f" {'base file':>14} {'base pty':>14} "
                                        f"{'base pty/file':>13}" if base else ""))
    ratios: dict[tuple[str, int], tuple[Run, Run]] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for kind, make in ANSWERS.items():
            for size in SIZES:
                text = make(size)
                dump = (profile / f"pty-{kind}-{size}.prof"
                        if profile is not None and size == SIZES[-1] else None)
                rows = measure(text, runs, tmp, ai, dump, base)
                med = {name: _median(values) for name, values in rows.items()}
                once = min(rich_render(text) for _ in range(2))
                plain, rendered = med["ai plain"], med["ai pty"]
                ratios[kind, size] = plain, rendered
                print(f"{kind:<11} {size:>6} {_cells(med, ('reader', 'ai'))} "
                      f"{_ratio(plain, rendered)} {once:>7.3f} "
                      f"{(rendered[1] - plain[1]) / once:>14.2f}x"
                      + (f" {_cells(med, ('base',))} {_ratio(med['base plain'], med['base pty'])}"
                         if base else ""))
    for kind in ANSWERS:
        (p20, r20), (p80, r80) = ratios[kind, SIZES[0]], ratios[kind, SIZES[1]]
        print(f"{kind:<11} 80k ai pty/file: cpu {r80[1] / p80[1]:.2f}x, wall "
              f"{r80[0] / p80[0]:.2f}x (goal <= 1.5x); 20k -> 80k growth: file "
              f"cpu {p80[1] / p20[1]:.2f}x, pty cpu {r80[1] / r20[1]:.2f}x, "
              f"pty wall {r80[0] / r20[0]:.2f}x (goal <= 4.5x)")


def _cells(med: dict[str, Run], names: tuple[str, ...]) -> str:
    return " ".join(f"{med[f'{n} {m}'][1]:>6.3f} ({med[f'{n} {m}'][0]:>5.2f})"
                    for n in names for m in ("plain", "pty"))


def _ratio(plain: Run, rendered: Run) -> str:
    return f"{rendered[1] / plain[1]:>5.2f}x ({rendered[0] / plain[0]:.2f}x)"


def _median(runs: list[Run]) -> Run:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


# ---------------------------------------------------------------- in process


def feed(console: Console, text: str) -> float:
    renderer = Renderer(console)
    events = [BlockDelta(index=0, kind="text", text=text[i:i + CHUNK])
              for i in range(0, len(text), CHUNK)]
    start = time.process_time()
    renderer.handle(BlockStart(index=0, kind="text"))
    for event in events:
        renderer.handle(event)
    renderer.handle(BlockStop(index=0, kind="text", content=text))
    renderer.handle(TurnComplete(stop_reason="stop"))
    console.file.flush()
    return time.process_time() - start


def to_pty(text: str) -> float:
    master, slave = os.openpty()

    def drain() -> None:
        while True:
            try:
                if not os.read(master, 65536):
                    return
            except OSError:
                return

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
    with open(os.devnull, "w") as sink:
        console = Console(file=sink, width=WIDTH, force_terminal=True, color_system="truecolor")
        chunks = range(CHUNK, len(text) + CHUNK, CHUNK)
        picks = [chunks[i * (len(chunks) - 1) // (samples - 1)] for i in range(samples)]
        total = 0.0
        for end in picks:
            start = time.process_time()
            console.print(Markdown(text[:end]))
            total += time.process_time() - start
    return total / samples * len(chunks)


def in_process() -> None:
    print("in process (Renderer fed directly, into a pty), CPU s (the drain thread's "
          "included), best of 2:")
    for kind, make in ANSWERS.items():
        small, big = make(SIZES[0]), make(SIZES[1])
        to_pty(small)  # warm-up (imports, lexers)
        t20, t80 = (min(to_pty(text) for _ in range(2)) for text in (small, big))
        print(f"{kind:<11} 20k {t20:.3f} s, 80k {t80:.3f} s, growth {t80 / t20:.2f}x; "
              f"one rich render of 80k {min(rich_render(big) for _ in range(2)):.3f} s")
    fence = "```python\n" + "".join(f"x{i} = {i}\n" for i in range(8000))
    f20, f80 = (to_pty(fence[:n] + "```\n") for n in SIZES)
    print(f"one code fence 80k/20k: {f80:.3f} s / {f20:.3f} s = {f80 / f20:.2f}x")
    estimate = naive(answer(SIZES[0]))
    print(f"naive re-render per chunk, generated 20k (estimated): {estimate:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="write cProfile dumps of rendered runs here")
    parser.add_argument("--skip-in-process", action="store_true")
    parser.add_argument("--ai", default=AI, help="the `ai` to run (e.g. an older build)")
    parser.add_argument("--base", type=Path,
                        help="A/B: also run `ai` importing swebash_py from this directory "
                             "(e.g. `git archive HEAD swebash_py | tar -x -C DIR`)")
    args = parser.parse_args()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    whole_process(args.runs, args.profile, args.ai, args.base)
    if not args.skip_in_process:
        in_process()


if __name__ == "__main__":
    main()
