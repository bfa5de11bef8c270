"""One owner of the tools' child processes: ``process/proc.py`` spawns them, and
nothing waits on a process with ``proc.wait()`` (it waits for the pipes too,
which a paused reader never sees close). A second spawner in tools/ or the
sandbox's runner is a future hole: this fails when one appears."""

from __future__ import annotations

import re
from pathlib import Path

import swebash_py

PACKAGE = Path(swebash_py.__file__).parent
OWNER = PACKAGE / "process" / "proc.py"
# the reaper forks its own watcher of our process group, not a tool's child
REAPER = PACKAGE / "process" / "reaper.py"
WATCHED = [*sorted((PACKAGE / "tools").glob("*.py")),
           *(p for p in sorted((PACKAGE / "process").glob("*.py")) if p != REAPER),
           PACKAGE / "sandbox" / "runner.py"]
SPAWNING = re.compile(r"create_subprocess_(exec|shell)|subprocess\.(run|Popen|call|check_)"
                      r"|os\.(fork|posix_spawn|spawn)|\bproc(ess)?\.wait\(\)")


def offenders() -> list[str]:
    found = []
    for path in WATCHED:
        if path == OWNER:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if SPAWNING.search(line.split("#")[0]):
                found.append(f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}")
    return found


def test_only_proc_spawns_the_tools_children() -> None:
    assert offenders() == []


def test_twin_the_owner_itself_is_seen() -> None:
    text = OWNER.read_text()
    assert SPAWNING.search(text) and "create_subprocess_exec" in text
