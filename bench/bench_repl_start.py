"""Start to usable REPL prompt in a pseudo-terminal, as a ratio to `python -c pass`.

Two moments: the prompt is drawn and accepts typing (the early plain prompt),
and the full prompt-toolkit prompt is ready (drawn after the banner line).

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


def prompt_times(env: dict[str, str]) -> tuple[float, float]:
    start = time.perf_counter()
    child = pexpect.spawn(AI, ["-m", "openai/x", "--api-base", "http://127.0.0.1:9"],
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 100))
    child.expect("swebash>")
    drawn = time.perf_counter() - start
    child.expect("/help for commands")
    child.expect("swebash>")
    ready = time.perf_counter() - start
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    return drawn, ready


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
        prompt_times(env)  # warm-up
        samples = [prompt_times(env) for _ in range(runs)]
    b = statistics.median(base)
    drawn = statistics.median(s[0] for s in samples)
    ready = statistics.median(s[1] for s in samples)
    print(f"python -c pass               {b * 1000:7.1f} ms")
    print(f"prompt drawn, typing buffered {drawn * 1000:6.1f} ms  {drawn / b:.1f}x (goal <= 3x)")
    print(f"full prompt-toolkit prompt   {ready * 1000:7.1f} ms  {ready / b:.1f}x")


if __name__ == "__main__":
    main()
