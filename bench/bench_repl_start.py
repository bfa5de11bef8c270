"""Start to usable REPL prompt in a pseudo-terminal, as a ratio to `python -c pass`.

Run: .venv/bin/python bench/bench_repl_start.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

AI = str(Path(sys.executable).parent / "ai")


def prompt_time(env: dict[str, str]) -> float:
    start = time.perf_counter()
    child = pexpect.spawn(AI, ["-m", "openai/x", "--api-base", "http://127.0.0.1:9"],
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 100))
    child.expect("swebash>")
    elapsed = time.perf_counter() - start
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SWEBASH_HOME": home, "SWEBASH_CONFIG": f"{home}/c.toml",
               "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1"}
        base = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            base.append(time.perf_counter() - start)
        prompt_time(env)  # warm-up
        samples = [prompt_time(env) for _ in range(runs)]
    b, p = statistics.median(base), statistics.median(samples)
    print(f"python -c pass        {b * 1000:7.1f} ms")
    print(f"start to REPL prompt  {p * 1000:7.1f} ms  {p / b:.1f}x (goal <= 3x)")


if __name__ == "__main__":
    main()
