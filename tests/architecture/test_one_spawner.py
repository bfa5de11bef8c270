"""Child processes (#27): the tools' children are ``process/proc.py``'s alone
(pipes read to their end, the group killed, reaped without waiting on a paused
pipe). Any other place that starts a process is listed here with why it is not
a tool's child; a new one fails until it is looked at. Twins: a synthetic
spawner is flagged; the owner itself is not."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "swebash_py"
OWNER = "process/"
SUBPROCESS = {"Popen", "run", "call", "check_output", "check_call", "getoutput",
              "getstatusoutput"}
ASYNCIO = {"create_subprocess_exec", "create_subprocess_shell"}
OS = {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "execv", "execve",
      "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve",
      "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe"}

# file: why its process is not a tool's child
ALLOWED: dict[str, str] = {
    "agent/hooks.py": "the user's own pre/post tool hooks, with their own timeout",
    "cli/pager.py": "the user's $PAGER for `ai sessions show`, in the foreground",
    "front/shell_helper.py": "`r` runs the suggested command in the user's shell, as asked",
    "repl/attached.py": "`!cmd` in the REPL: the user's own command, attached to the terminal",
    "repl/shell.py": "`!cmd` in the REPL: the user's own command",
    "sandbox/bwrap.py": "`bwrap --version` and one trial run, once per process",
    "sandbox/overlay.py": "the preview's overlay holder (its lifetime is the preview's)",
}


def spawns(source: str) -> list[int]:
    """Lines of the calls in ``source`` that start a process."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.id if isinstance(owner, ast.Name) else ""
            if ((name == "subprocess" and node.func.attr in SUBPROCESS)
                    or (name == "asyncio" and node.func.attr in ASYNCIO)
                    or (name == "os" and node.func.attr in OS)):
                found.append(node.lineno)
    return found


def _spawners() -> dict[str, list[int]]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = str(path.relative_to(PACKAGE))
        if not rel.startswith(OWNER) and (lines := spawns(path.read_text(encoding="utf-8"))):
            out[rel] = lines
    return out


def test_processes_start_only_in_the_owner_and_the_listed_places() -> None:
    unlisted = {rel: lines for rel, lines in _spawners().items() if rel not in ALLOWED}
    assert unlisted == {}, ("start a tool's child through process/proc.py, or list why "
                            "this process is not one")


def test_no_stale_entries() -> None:
    assert sorted(set(ALLOWED) - set(_spawners())) == []


def test_twin_a_spawner_is_seen() -> None:
    assert spawns("import subprocess\nsubprocess.run(['ls'])\n") == [2]
    assert spawns("import asyncio\nasyncio.create_subprocess_shell('ls')\n") == [2]
    assert spawns("import os\nos.system('ls')\n") == [2]


def test_twin_the_owner_spawns() -> None:
    owner = {str(p.relative_to(PACKAGE)): spawns(p.read_text(encoding="utf-8"))
             for p in (PACKAGE / "process").rglob("*.py")}
    assert any(owner.values())
