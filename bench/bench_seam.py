"""Whole process, through the execution seam: `ai` one-shots that make one
run_command call (``echo x > out.txt``), timed, median of N after one warm run.

previewed: piped (no terminal), no -y: the command runs with the preview's
runner, its change is asked about, nobody can answer, it is discarded.
direct: -y: it runs with the ordinary runner and writes out.txt.

    .venv/bin/python bench/bench_seam.py [N]
    PYTHONPATH=/path/to/other/tree .venv/bin/python bench/bench_seam.py [N]  # to compare
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AI = str(Path(sys.executable).parent / "ai")
CALL = {"tool_calls": [{"id": "c1", "name": "run_command",
                        "arguments": json.dumps({"command": "echo x > out.txt"})}]}


def timed(url: str, env: dict[str, str], extra: list[str], runs: int) -> tuple[float, bool]:
    times, made = [], False
    for i in range(runs + 1):
        ws = Path(tempfile.mkdtemp())
        start = time.perf_counter()
        subprocess.run([AI, "-m", "openai/x", "--api-base", url, *extra, "go"], cwd=ws,
                       env=env, capture_output=True, stdin=subprocess.DEVNULL, check=False)
        if i:  # the first run warms the caches
            times.append((time.perf_counter() - start) * 1000)
        made = (ws / "out.txt").exists()
    return statistics.median(times), made


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    home = Path(tempfile.mkdtemp())
    script = home / "script.json"
    script.write_text(json.dumps([r for _ in range(2 * runs + 2)
                                  for r in (CALL, {"text": "done"})]))
    fp = subprocess.Popen([sys.executable, "-m", "tests.fakeprovider", "--script",
                           str(script)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert fp.stdout is not None
    url = fp.stdout.readline().split()[-1]
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"))
    try:
        for name, extra in (("previewed", []), ("direct", ["-y"])):
            median, made = timed(url, env, extra, runs)
            print(f"{name:10s} median {median:7.1f} ms  out.txt written: {made}")
    finally:
        fp.kill()


if __name__ == "__main__":
    main()
