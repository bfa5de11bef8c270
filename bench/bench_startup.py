"""Start-up and one-shot cost of the installed `ai`, against baselines in the same run.

Prints: `ai --version` / `ai --help` as a ratio to `python -c pass`; a short
one-shot answer through the direct backend (whole process) against a bare
standard-library reader of the same stream; peak RSS of the one-shot.
Run: .venv/bin/python bench/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
AI = str(Path(sys.executable).parent / "ai")


def timed(argv: list[str], runs: int, env: dict[str, str]) -> float:
    """Median wall seconds of ``argv`` over ``runs`` runs (after one warm-up)."""
    subprocess.run(argv, capture_output=True, env=env, check=False)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=False)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def peak_rss_mib(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(argv, capture_output=True, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(before, after) / 1024


def start_server(script: Path) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakeprovider.py"),
                               "--port", "0", "--script", str(script), "--repeat-last"],
                              stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    return server, line.split()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SWEBASH_HOME": home, "SWEBASH_CONFIG": f"{home}/c.toml",
               "NO_PROXY": "127.0.0.1"}
        base = timed([sys.executable, "-c", "pass"], runs, env)
        print(f"python -c pass        {base * 1000:7.1f} ms")
        for args in (["--version"], ["--help"]):
            t = timed([AI, *args], runs, env)
            print(f"ai {args[0]:<18} {t * 1000:7.1f} ms  {t / base:5.2f}x (goal <= 2x)")
        script = Path(home) / "script.json"
        script.write_text(json.dumps([{"text": "Port 8080 is free.", "chunk_size": 4}]))
        server, url = start_server(script)
        try:
            question = [AI, "-m", "openai/x", "--api-base", url, "is 8080 busy?"]
            oneshot = timed(question, runs, env)
            reader = timed([sys.executable, str(HERE / "stdlib_reader.py"), url], runs, env)
            print(f"one-shot short answer {oneshot * 1000:7.1f} ms  (goal <= 600 ms)")
            print(f"stdlib reader         {reader * 1000:7.1f} ms  ratio {oneshot / reader:.2f}x")
            print(f"one-shot peak RSS     {peak_rss_mib(question, env):7.1f} MiB (goal < 100)")
        finally:
            server.terminate()
        for size in (20_000, 80_000):
            long_answer(home, env, size, max(3, runs // 2))


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
        ai = timed([AI, "-m", "openai/x", "--api-base", url, "write it"], runs, env)
        reader = timed([sys.executable, str(HERE / "stdlib_reader.py"), url], runs, env)
    finally:
        server.terminate()
    print(f"{size:,} chars in {size // 4:,} chunks to a file: ai {ai:.3f} s, "
          f"stdlib reader {reader:.3f} s, ratio {ai / reader:.2f}x (goal <= 2x)")


if __name__ == "__main__":
    main()
