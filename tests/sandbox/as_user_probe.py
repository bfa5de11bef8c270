"""Run as an ordinary user by test_as_user: real sandboxed commands, one JSON line out."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from swebash_py.sandbox import runner
from swebash_py.sandbox.policy import SandboxPolicy


async def main(ws: Path, home: Path, mode: str) -> None:
    policy = SandboxPolicy(mode, ws, hidden=(home / ".ssh", ws / ".env"), home=home)  # type: ignore[arg-type]
    script = ("echo hi > written; cat .env; cat ~/.ssh/id_rsa; echo x > /tmp/sbx-user-mark; "
              "setsid sleep 1002.7 > /dev/null 2>&1 < /dev/null & echo started")
    res = await runner.run(["/bin/sh", "-c", script], policy, timeout=30,
                           plain_env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    print(json.dumps({"output": res.output, "returncode": res.returncode}))


asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
