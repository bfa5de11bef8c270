"""Start to usable REPL prompt in a pseudo-terminal, as a ratio to `python -c pass`.

Two moments: the prompt is drawn and accepts typing (the early plain prompt),
and the full prompt-toolkit prompt is ready (drawn after the banner line).

``--base DIR`` times another source tree (``git archive main``) in the same rounds.

Run: .venv/bin/python bench/bench_repl_start.py [--runs N] [--base DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import AI, home_env, timed


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
    parser.add_argument("--base", help="another source tree (holding swebash_py/)")
    opts = parser.parse_args()
    runs = opts.runs
    with tempfile.TemporaryDirectory() as home:
        env = home_env(home, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
        trees = {"this tree": {**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}}
        if opts.base:
            trees[f"base {opts.base}"] = {**env, "PYTHONPATH": opts.base,
                                          "SWEBASH_HOME": f"{home}/base"}
        b = timed([sys.executable, "-c", "pass"], runs)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for tree_env in trees.values():
            prompt_times(tree_env)  # warm-up
        for _ in range(runs):
            for name, tree_env in trees.items():
                samples[name].append(prompt_times(tree_env))
    print(f"python -c pass               {b * 1000:7.1f} ms")
    for name, got in samples.items():
        drawn = statistics.median(s[0] for s in got)
        ready = statistics.median(s[1] for s in got)
        print(f"== {name}")
        print(f"prompt drawn, typing buffered {drawn * 1000:6.1f} ms  {drawn / b:.1f}x"
              " (goal <= 3x)")
        print(f"full prompt-toolkit prompt   {ready * 1000:7.1f} ms  {ready / b:.1f}x")


if __name__ == "__main__":
    main()
