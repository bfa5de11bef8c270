"""Kill a real `ai` at random moments and count what the store lost.

Each trial runs `ai -y --json` on a scripted turn (text, three commands that
each take ~0.1 s and leave a marker when done, a read, then a slowly streamed
answer: ~1.7 s from the first request), kills it a random 0-2 s after the
first request arrives (kill -9, or SIGTERM with --signal
term), then compares:

* blocks `ai` reported complete (`block_stop` on stdout) but not stored: the
  contract allows 0 — a block is committed before it is reported;
* commands that finished (marker present) without a stored result: at most
  the one in flight at the kill.

Usage: .venv/bin/python bench/bench_crash.py [--trials 30] [--signal kill|term]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.crashkit import block_stops, lost_blocks, stored_blocks
from tests.fakeprovider import FakeProvider, Reply, ToolCall

AI = str(Path(sys.executable).parent / "ai")


def _script() -> list[Reply]:
    calls = [ToolCall(f"c{i}", "run_command",
                      json.dumps({"command": f"sleep 0.1 && echo {i} > mark.{i}"}))
             for i in range(3)]
    calls.append(ToolCall("r0", "read_file", json.dumps({"path": "mark.0"})))
    return [Reply(text="Working on it. " * 5, chunk_size=8, delay=0.005, tool_calls=calls),
            Reply(text="All done: " + "words " * 200, chunk_size=6, delay=0.005)]


def trial(fp: FakeProvider, signum: int, delay: float) -> tuple[int, int, int, int | None]:
    """(blocks reported, blocks lost, finished commands unrecorded, exit code)."""
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        ws.mkdir()
        env = dict(os.environ, SWEBASH_HOME=str(home), SWEBASH_CONFIG=str(Path(tmp) / "c.toml"),
                   NO_PROXY="127.0.0.1")
        os.environ["SWEBASH_HOME"] = str(home)  # for crashkit's readers
        fp.queue(*_script())
        process = subprocess.Popen([AI, "-y", "--json", "-m", "openai/x", "--api-base", fp.url,
                                    "do it"], cwd=ws, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        fp.wait_for_requests(len(fp.requests) + 1, timeout=30)  # the turn has begun
        time.sleep(delay)
        if process.poll() is None:
            os.kill(process.pid, signum)
        stdout, _ = process.communicate(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        stored = stored_blocks()
        shown = block_stops(stdout)
        results = {b.get("call_id") for b in stored if b["type"] == "tool_result"
                   and not str(b["text"]).startswith(("interrupted", "cancelled"))}
        unrecorded = sum(1 for i in range(3)
                         if (ws / f"mark.{i}").exists() and f"c{i}" not in results)
        fp._replies.clear()
        return len(shown), len(lost_blocks(shown, stored)), unrecorded, process.returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--signal", choices=["kill", "term"], default="kill")
    ap.add_argument("--max-delay", type=float, default=2.0, help="after the first request")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    signum = signal.SIGKILL if args.signal == "kill" else signal.SIGTERM
    shown = lost = unrecorded = worst_unrecorded = 0
    codes: dict[int | None, int] = {}
    with FakeProvider() as fp:
        for _ in range(args.trials):
            n, k, u, code = trial(fp, signum, rng.uniform(0.0, args.max_delay))
            shown, lost, unrecorded = shown + n, lost + k, unrecorded + u
            worst_unrecorded = max(worst_unrecorded, u)
            codes[code] = codes.get(code, 0) + 1
    print(f"{args.trials} trials ({args.signal}): {shown} blocks reported complete, "
          f"{lost} of them lost; finished commands without a stored result: {unrecorded} "
          f"in all, at most {worst_unrecorded} per trial; exit codes {codes}")


if __name__ == "__main__":
    main()
