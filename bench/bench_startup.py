"""Start-up and one-shot cost of the installed `ai`, against baselines in the same run.

Every command is run once per round, rounds interleaved (so load on a shared
machine hits all rows alike); printed: the median, the spread (25th-75th
percentile) and the median of the per-round ratios to `python -c pass`. Rows:
`ai --version`, `ai --help`, a short one-shot answer through the direct backend
piped (plain) and in a pty (rendered), and a bare standard-library reader of the
same stream. ``--baseline DIR`` adds the same one-shot rows for another source
tree (a `git archive` of main, say) run with this venv, for before/after in one run.
Then peak RSS, and long answers to a file.
Run: .venv/bin/python bench/bench_startup.py [--runs N] [--baseline DIR] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
AI = str(Path(sys.executable).parent / "ai")
LAUNCH = "import sys; from swebash_py.cli.main import main; sys.exit(main())"


@dataclass
class Row:
    """One command to time: its argv, extra environment, and whether it runs in a pty."""

    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    in_pty: bool = False
    samples: list[float] = field(default_factory=list)  # wall seconds
    cpu: list[float] = field(default_factory=list)  # user + system seconds


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(row: Row, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``row``, to its exit (and, in a pty, its
    last byte). CPU time (the child's user + system) hardly moves with the machine's
    load; wall time does."""
    full_env = {**env, **row.env}
    cpu = _children_cpu()
    start = time.perf_counter()
    if row.in_pty:
        run_in_pty(row.argv, full_env)
    else:
        subprocess.run(row.argv, capture_output=True, env=full_env, stdin=subprocess.DEVNULL,
                       check=False)
    return time.perf_counter() - start, _children_cpu() - cpu


def run_in_pty(argv: list[str], env: dict[str, str]) -> bytes:
    """Run ``argv`` with a pseudo-terminal as stdin/stdout/stderr; returns its output."""
    controller, terminal = pty.openpty()
    env = {**env, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    proc = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=terminal, env=env,
                            start_new_session=True)
    os.close(terminal)
    out = bytearray()
    try:
        while chunk := os.read(controller, 65536):
            out += chunk
    except OSError:  # EIO: every holder of the terminal has closed it
        pass
    finally:
        os.close(controller)
    proc.wait()
    return bytes(out)


def timed(argv: list[str], runs: int, env: dict[str, str]) -> float:
    """Median wall seconds of ``argv`` over ``runs`` runs (after one warm-up)."""
    row = Row("", argv)
    run_once(row, env)
    return statistics.median(run_once(row, env)[0] for _ in range(runs))


def interleaved(rows: list[Row], runs: int, env: dict[str, str]) -> None:
    """Fill each row's samples: one warm-up round, then ``runs`` rounds, each row once
    per round, the order rotated every round."""
    for row in rows:
        run_once(row, env)
    for n in range(runs):
        order = rows[n % len(rows):] + rows[:n % len(rows)]
        for row in order:
            wall, cpu = run_once(row, env)
            row.samples.append(wall)
            row.cpu.append(cpu)


def report(rows: list[Row], base: Row) -> None:
    """Per row, wall then CPU: median ms, the middle half of the ratios to ``base``
    (per round), and the median ratio."""
    print(f"{'':26} {'wall ms':>8} {'x pass':>6} {'(p25-p75)':>13}"
          f" {'cpu ms':>8} {'x pass':>6} {'(p25-p75)':>13}")
    for row in rows:
        cells = []
        for mine, theirs in ((row.samples, base.samples), (row.cpu, base.cpu)):
            ratios = [s / b if b else float("nan") for s, b in zip(mine, theirs, strict=True)]
            rq = statistics.quantiles(ratios, n=4)
            cells.append(f"{statistics.median(mine) * 1000:8.1f} {statistics.median(ratios):5.2f}x"
                         f" ({rq[0]:5.2f}-{rq[2]:5.2f})")
        print(f"{row.name:26} {' '.join(cells)}")


def peak_rss_mib(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(argv, capture_output=True, env=env, stdin=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(before, after) / 1024


def start_server(script: Path) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakeprovider.py"),
                               "--port", "0", "--script", str(script), "--repeat-last"],
                              stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    return server, line.split()[1]


def oneshot_rows(url: str, baseline: str | None, home: str) -> list[Row]:
    question = ["-m", "openai/x", "--api-base", url, "hi"]
    rows = [Row("python -c pass", [sys.executable, "-c", "pass"]),
            Row("ai --version", [AI, "--version"]),
            Row("ai --help", [AI, "--help"]),
            Row("ai one-shot piped", [AI, *question]),
            Row("ai one-shot pty", [AI, *question], in_pty=True),
            Row("stdlib reader", [sys.executable, str(HERE / "stdlib_reader.py"), url])]
    if baseline:
        # its own data directory: an older tree refuses a database a newer one migrated
        tree = {"PYTHONPATH": baseline, "SWEBASH_HOME": f"{home}/baseline"}
        here = {"PYTHONPATH": str(ROOT)}
        launch = [sys.executable, "-c", LAUNCH, *question]
        rows += [Row("this tree one-shot piped", launch, here),
                 Row("baseline one-shot piped", launch, tree),
                 Row("this tree one-shot pty", launch, here, in_pty=True),
                 Row("baseline one-shot pty", launch, tree, in_pty=True)]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--baseline", help="another source tree (holding swebash_py/)")
    parser.add_argument("--quick", action="store_true", help="skip RSS and long answers")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SWEBASH_HOME": home, "SWEBASH_CONFIG": f"{home}/c.toml",
               "NO_PROXY": "127.0.0.1"}
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed copy has its bytecode cached
        os.chdir(home)  # `python -c` puts the working directory first on sys.path
        script = Path(home) / "script.json"
        script.write_text(json.dumps([{"text": "Hello! How can I help?", "chunk_size": 4}]))
        server, url = start_server(script)
        try:
            rows = oneshot_rows(url, opts.baseline, home)
            interleaved(rows, opts.runs, env)
            print(f"{opts.runs} interleaved rounds (goals: --version <= 2x, one-shot <= 6x)")
            report(rows, rows[0])
            if not opts.quick:
                rss = peak_rss_mib(rows[3].argv, env)
                print(f"one-shot peak RSS     {rss:7.1f} MiB (goal < 100)")
        finally:
            server.terminate()
        if not opts.quick:
            for size in (20_000, 80_000):
                long_answer(home, env, size, max(3, opts.runs // 4))


def markdown_answer(size: int) -> str:
    """A deterministic Markdown answer of about ``size`` characters."""
    parts, n = [], 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(f"## Step {n}\n\nRun the check, then read **line {n}** of the log.\n\n"
                     f"```sh\ngrep -n 'error {n}' build.log | head\n```\n\n"
                     f"- first point {n}\n- second point {n}\n\n")
    return "".join(parts)[:size]


def long_answer(home: str, env: dict[str, str], size: int, runs: int) -> None:
    """The whole `ai` process writing a long answer to a file, vs the stdlib reader."""
    script = Path(home) / f"long{size}.json"
    script.write_text(json.dumps([{"text": markdown_answer(size), "chunk_size": 4}]))
    server, url = start_server(script)
    try:
        rows = [Row("ai", [AI, "-m", "openai/x", "--api-base", url, "write it"]),
                Row("reader", [sys.executable, str(HERE / "stdlib_reader.py"), url])]
        interleaved(rows, runs, env)
    finally:
        server.terminate()
    ai, reader = (statistics.median(row.samples) for row in rows)
    print(f"{size:,} chars in {size // 4:,} chunks to a file: ai {ai:.3f} s, "
          f"stdlib reader {reader:.3f} s, ratio {ai / reader:.2f}x (goal <= 2x)")


if __name__ == "__main__":
    main()
