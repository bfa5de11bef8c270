"""What a one-shot answer imports: modules in all, ours, and the heavy packages.

Runs `ai --version` and `ai -m openai/x --api-base URL "hi"` (piped, and in a
pty) under `python -X importtime` against the scripted loopback provider and
counts the modules imported; ``-v`` lists ours, ``--top N`` prints the N
slowest top-level imports (cumulative) of the piped one-shot.
Run: .venv/bin/python bench/bench_modules.py [-v] [--top N]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_startup import run_in_pty, start_server  # noqa: E402

HEAVY = ("pydantic", "rich", "httpx", "anyio", "sqlite3", "asyncio", "pygments",
         "markdown_it", "importlib.metadata", "typer", "prompt_toolkit", "litellm")


def importtime(argv: list[str], env: dict[str, str], in_pty: bool = False) -> list[str]:
    """The ``-X importtime`` lines of running ``argv`` (in a pty: stdin and stdout are
    the terminal, stderr a file, which holds the lines)."""
    command = [sys.executable, "-X", "importtime", "-m", "swebash_py", *argv]
    if not in_pty:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL, check=False)
        return [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    with tempfile.NamedTemporaryFile("r", suffix=".log") as log:
        shell = f'exec 2>"{log.name}"; exec "$@"'
        run_in_pty(["/bin/sh", "-c", shell, "sh", *command], env)
        return [line for line in log.read().splitlines() if line.startswith("import time:")]


def names(lines: list[str]) -> list[str]:
    return [line.rsplit("|", 1)[-1].strip() for line in lines[1:]]  # [0] is the header


def top(lines: list[str], count: int) -> list[str]:
    """The ``count`` slowest imports by cumulative time, nested ones included."""
    rows = []
    for line in lines[1:]:
        _, cumulative, name = line.split("|")
        rows.append((int(cumulative), name.rstrip()))
    rows.sort(reverse=True)
    return [f"{micro / 1000:8.1f} ms {name}" for micro, name in rows[:count]]


def summary(label: str, loaded: list[str], total_ours: int) -> None:
    ours = [n for n in loaded if n.startswith("swebash_py")]
    heavy = [h for h in HEAVY if h in loaded]
    print(f"{label:22} {len(loaded):4} modules, {len(ours):3} of {total_ours} swebash_py; "
          f"heavy: {', '.join(heavy) or '-'}")


def main() -> None:
    total = sum(1 for _ in (ROOT / "swebash_py").rglob("*.py"))
    count = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 0
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SWEBASH_HOME": home, "SWEBASH_CONFIG": f"{home}/c.toml",
               "NO_PROXY": "127.0.0.1"}
        script = Path(home) / "script.json"
        script.write_text(json.dumps([{"text": "Hello! How can I help?", "chunk_size": 4}]))
        server, url = start_server(script)
        question = ["-m", "openai/x", "--api-base", url, "hi"]
        try:
            summary("ai --version", names(importtime(["--version"], env)), total)
            piped = importtime(question, env)
            summary("one-shot piped", names(piped), total)
            summary("one-shot --no-tools", names(importtime(["--no-tools", *question], env)),
                    total)
            summary("one-shot pty", names(importtime(question, env, in_pty=True)), total)
        finally:
            server.terminate()
    if count:
        print("slowest imports of the piped one-shot (cumulative, one run):")
        print("\n".join(top(piped, count)))
    if "-v" in sys.argv:
        print("\n".join(sorted(n for n in names(piped) if n.startswith("swebash_py"))))


if __name__ == "__main__":
    main()
