"""How many of our own modules a one-shot answer loads (and how many there are).

Runs `ai -m openai/x --api-base URL "q"` under `python -X importtime` against
the scripted loopback provider and counts the `swebash_py` modules imported.
Run: .venv/bin/python bench/bench_modules.py
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

from bench_startup import start_server  # noqa: E402


def loaded_modules(argv: list[str], env: dict[str, str]) -> list[str]:
    """Names of the swebash_py modules imported while running ``argv``."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "swebash_py", *argv],
                          capture_output=True, text=True, env=env, check=False)
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
             if line.startswith("import time:")}
    return sorted(name for name in names if name.startswith("swebash_py"))


def main() -> None:
    package = ROOT / "swebash_py"
    total = sum(1 for _ in package.rglob("*.py"))
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "SWEBASH_HOME": home, "SWEBASH_CONFIG": f"{home}/c.toml",
               "NO_PROXY": "127.0.0.1"}
        script = Path(home) / "script.json"
        script.write_text(json.dumps([{"text": "Port 8080 is free.", "chunk_size": 4}]))
        server, url = start_server(script)
        try:
            names = loaded_modules(["-m", "openai/x", "--api-base", url, "is 8080 busy?"], env)
        finally:
            server.terminate()
    print(f"one-shot loads {len(names)} of {total} swebash_py modules")
    if "-v" in sys.argv:
        print("\n".join(names))


if __name__ == "__main__":
    main()
