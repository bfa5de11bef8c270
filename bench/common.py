"""What the benches share: where things are, the scripted provider as a process of
its own, and the median wall time of a command.

Import it as ``from bench.common import ...`` after putting the repository root on
``sys.path`` (a bench runs as ``.venv/bin/python bench/NAME.py``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
AI = str(Path(sys.executable).parent / "ai")
# a short answer, as often as asked (a one-shot's whole-process cost)
SHORT_ANSWER = {"replies": [{"text": "Port 8080 is free.", "chunk_size": 4}], "repeat_last": True}


def home_env(home: str | Path, **extra: str) -> dict[str, str]:
    """Our environment with ``ai``'s config and data in ``home`` (and no proxy for
    the loopback provider)."""
    return {**os.environ, "SWEBASH_HOME": str(home), "SWEBASH_CONFIG": f"{home}/c.toml",
            "NO_PROXY": "127.0.0.1", **extra}


def start_provider(script: Path | list[dict[str, Any]] | dict[str, Any],
                   where: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    """``tests/fakeprovider.py`` serving ``script`` (a script file, or its replies
    written to ``where``/script.json) on a free port: (process, URL)."""
    if not isinstance(script, Path):
        if where is None:
            raise ValueError("a script given as data needs a folder to write it to")
        data, script = script, where / "script.json"
        script.write_text(json.dumps(data))
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fakeprovider.py"),
                             "--port", "0", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("READY "):
        proc.terminate()
        raise SystemExit(f"fake provider did not start: {line!r}")
    return proc, line.split()[1]


def timed(argv: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    """Median wall seconds of ``argv`` over ``runs`` runs (after one warm-up)."""
    subprocess.run(argv, capture_output=True, env=env, check=False)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=False)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
