"""`ai sessions show` of long sessions on a terminal: when the first bytes reach
the screen, when the last do, and the peak RSS of `ai`.

A store with one session of N turns (a short question, a Markdown answer with a
list and a code block) is built in a temp dir; `ai sessions show` runs in a
pseudo-terminal (100x40) with a pager that copies what it gets to the terminal
as it gets it. ``--ai`` compares another install (e.g. one of main).

    .venv/bin/python bench/bench_sessions_show.py [--turns 1000 5000] [--ai PATH]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swebash_py.engine.messages import TextBlock
from swebash_py.store import Store

ANSWER = ("Some **Markdown** answer with `code` and a list:\n\n- one\n- two\n\n"
          "```python\nprint('hello')\n```\n")
COPY_PAGER = ("import sys\nwhile chunk := sys.stdin.buffer.read1(65536):\n"
              "    sys.stdout.buffer.write(chunk); sys.stdout.buffer.flush()\n")


def build(home: Path, turns: int) -> str:
    with Store(home / "sessions.db") as store:
        sid = store.create_session("openai/x", str(home))
        for n in range(turns):
            turn = store.begin_turn(sid, f"question number {n}?")
            store.add_block(turn, TextBlock(f"Answer {n}. {ANSWER}"))
            store.finish_turn(turn, "stop", 10, 20)
    return sid


def show(ai: str, home: Path, sid: str, pager: Path) -> tuple[float, float, int, int]:
    """(first bytes s, last bytes s, bytes, peak RSS MB of `ai`)."""
    env = {**os.environ, "SWEBASH_HOME": str(home), "PAGER": f"{sys.executable} {pager}",
           "TERM": "xterm-256color"}
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(ai, [ai, "sessions", "show", sid], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    first, last, total = None, start, 0
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        now = time.perf_counter()
        if first is None and chunk.strip():
            first = now
        last, total = now, total + len(chunk)
    _, _, usage = os.wait4(pid, 0)
    return (first or last) - start, last - start, total, usage.ru_maxrss // 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--ai", default=str(Path(sys.executable).parent / "ai"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pager = Path(tmp) / "pager.py"
        pager.write_text(COPY_PAGER)
        for turns in args.turns:
            home = Path(tmp) / f"h{turns}"
            home.mkdir()
            sid = build(home, turns)
            first, last, size, rss = show(args.ai, home, sid, pager)
            print(f"{turns:>6} turns: first bytes {first:.2f} s, last {last:.2f} s, "
                  f"{size / 1e6:.1f} MB drawn, ai peak RSS {rss} MB")


if __name__ == "__main__":
    main()
