"""A model's first tool call, whole process, through ``python -m swebash_py``.

The scripted provider (in this process) answers the question with a ``read_file``
call, then with text; it notes when that reply's first event went out and when the
next request (carrying the tool result) arrived. Between the two ``ai`` imports the
tool's module, checks the arguments (msgspec), judges the call, reads the file and
sends the result: what the user waits for at a first tool call. Rows: that time
(median and min ms over interleaved rounds), and whether pydantic was loaded by
then (one run with ``-X importtime``). ``--base DIR`` times another source tree
(``git archive main swebash_py | tar -x -C DIR``) with this venv, in the same rounds.
Run: .venv/bin/python bench/bench_tool_call.py [--runs N] [--base DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, home_env
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def once(tree: str, home: str, *, importtime: bool = False) -> tuple[float, bool]:
    """(ms from the tool-call reply's first byte to the next request, pydantic seen)."""
    workspace = Path(home) / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "notes.txt").write_text("one\ntwo\n")
    with FakeProvider() as fp:
        call = ToolCall("c1", "read_file", json.dumps({"path": "notes.txt", "limit": 2}))
        fp.queue(Reply(tool_calls=[call]), Reply(text="ok"))
        flags = ["-X", "importtime"] if importtime else []
        done = subprocess.run([sys.executable, *flags, "-m", "swebash_py", "-m", "openai/x",
                               "--api-base", fp.url, "read it"], cwd=workspace,
                              env=home_env(home, PYTHONPATH=tree), capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0 or "ok" not in done.stdout:
            raise SystemExit(f"ai failed: {done.stderr[-500:]}")
        took = (fp.requests[1].arrived - (fp.requests[0].first_byte or 0.0)) * 1000
    return took, re.search(r"^import time:.*\|\s+pydantic$", done.stderr, re.M) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--base", help="another source tree (holding swebash_py/)")
    opts = parser.parse_args()
    trees = {"this tree": str(ROOT), **({f"base {opts.base}": opts.base} if opts.base else {})}
    samples: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as home:
        for _ in range(opts.runs):
            for name, tree in trees.items():
                samples[name].append(once(tree, f"{home}/{len(samples[name])}{name[0]}")[0])
        for name, tree in trees.items():
            _took, pydantic = once(tree, f"{home}/it{name[0]}", importtime=True)
            times = samples[name]
            print(f"{name}: first tool call (reply's first byte -> next request) median "
                  f"{statistics.median(times):.1f} ms, min {min(times):.1f} ms; "
                  f"pydantic imported: {'yes' if pydantic else 'no'}")


if __name__ == "__main__":
    main()
