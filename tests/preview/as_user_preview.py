"""Run as an ordinary user by test_as_user: a preview, its changes applied; one JSON line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from swebash_py.preview.run import run_preview
from swebash_py.sandbox import overlay
from swebash_py.sandbox.policy import SandboxPolicy


async def main(ws: Path) -> None:
    found = overlay.support()
    if not found.ok:
        print(json.dumps({"support": found.reason}))
        return
    policy = SandboxPolicy("workspace-write", ws, hidden=(ws / ".env",))
    script = "id -u; cat .env; echo more >> kept.txt; rm -r tree; echo n > new.txt"
    preview = await run_preview(["/bin/sh", "-c", script], policy, timeout=30)
    untouched = (ws / "kept.txt").read_text() == "kept\n" and (ws / "tree").is_dir()
    changes = sorted((c.rel, c.action) for c in preview.changes.changes)
    report = preview.apply()
    print(json.dumps({"support": "", "output": preview.result.output, "untouched": untouched,
                      "changes": changes, "conflicts": len(report.conflicts),
                      "uid": os.getuid(), "owner": (ws / "new.txt").stat().st_uid}))


asyncio.run(main(Path(sys.argv[1])))
