"""The prompt delay `ai shell-init`'s history hooks add (issue #30, goal <= 5 ms).

For bash, zsh and fish in a pty: N commands (``:``) typed one after the other,
each waited for until its prompt is back, with the snippet of ``history = true``
and of ``history = false`` (the key binding alone), alternated in rounds so that
the machine's load hits both alike. Prints the median per prompt of each and
their difference: what a user waits more at each prompt.

    .venv/bin/python bench/bench_shell_hooks.py [N]
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

from swebash_py.cli.shell_init import snippet

ARGV = {"bash": ["bash", "--norc", "--noprofile", "-i"], "zsh": ["zsh", "-f", "-i"],
        "fish": ["fish", "--no-config", "-i"]}
# A prompt that counts, so that each wait is for the prompt of the command just sent
# (never an echo or a repaint of the previous one).
PROMPT = {"bash": "PS1='P\\#> '", "zsh": "PS1='P%h> '",
          "fish": "set -g __n 0; function fish_prompt; set -g __n (math $__n + 1); "
                  "echo -n P$__n'> '; end; set -g fish_greeting"}


def per_prompt(shell: str, init: Path, n: int) -> list[float]:
    """Seconds from Enter to the next prompt, for each of ``n`` commands."""
    child = pexpect.spawn(ARGV[shell][0], ARGV[shell][1:], encoding="utf-8", timeout=20,
                          env={**os.environ, "TERM": "dumb"})
    child.delaybeforesend = None  # pexpect sleeps 50 ms before each send by default
    child.sendline(PROMPT[shell])
    child.sendline(f"source {init}")
    child.sendline("echo READY-$((6*7))" if shell != "fish" else "echo READY-(math 6 \\* 7)")
    child.expect("READY-42")
    child.expect(r"P(\d+)> ")
    last = int(child.match.group(1))
    times = []
    for _ in range(n):
        began = time.perf_counter()
        child.sendline(":")
        child.expect_exact(f"P{last + 1}> ")
        times.append(time.perf_counter() - began)
        last += 1
    child.terminate(force=True)
    return times


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for shell in ARGV:
            if shutil.which(shell) is None:
                print(f"{shell}: not installed")
                continue
            on, off = folder / f"on.{shell}", folder / f"off.{shell}"
            on.write_text(snippet(shell, history_dir=folder))
            off.write_text(snippet(shell))
            with_hooks: list[float] = []
            without: list[float] = []
            for _ in range(5):  # rounds, alternated
                with_hooks += per_prompt(shell, on, n // 5)
                without += per_prompt(shell, off, n // 5)
            a, b = statistics.median(with_hooks) * 1e3, statistics.median(without) * 1e3
            print(f"{shell}: {a:.2f} ms per prompt with history, {b:.2f} ms without: "
                  f"+{a - b:.2f} ms ({len(with_hooks)} prompts each)")


if __name__ == "__main__":
    main()
