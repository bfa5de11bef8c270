"""How many of our own modules a one-shot answer loads (and how many there are).

Runs `ai -m openai/x --api-base URL "q"` under `python -X importtime` against
the scripted loopback provider and counts the `swebash_py` modules imported.
Run: .venv/bin/python bench/bench_modules.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, SHORT_ANSWER, home_env, start_provider


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
        env = home_env(home)
        server, url = start_provider(SHORT_ANSWER, Path(home))
        try:
            names = loaded_modules(["-m", "openai/x", "--api-base", url, "is 8080 busy?"], env)
        finally:
            server.terminate()
    print(f"one-shot loads {len(names)} of {total} swebash_py modules")
    if "-v" in sys.argv:
        print("\n".join(names))


if __name__ == "__main__":
    main()
