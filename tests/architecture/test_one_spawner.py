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

# file: why its process is not a tool's child. The hooks (agent/hooks.py) and the
# REPL's `!command` (repl/shell.py, repl/attached.py) are started by the owner.
ALLOWED: dict[str, str] = {
    "cli/pager.py": "the user's $PAGER for `ai sessions show`: a synchronous foreground "
                    "program on our own terminal, started with no event loop running and "
                    "waited for; nothing of ours runs meanwhile, so there is nothing to "
                    "outlive, and it must stay in our process group to get the terminal",
    "front/shell_helper.py": "`r` of the shell helper hands the accepted command to the "
                             "user's shell in the foreground, as if typed (synchronous, no "
                             "loop, our process group and terminal; `ai` only waits)",
    "sandbox/bwrap.py": "`bwrap --version` and one trial run, once per process: the "
                        "sandbox's own probe, bounded by its own timeout, before any tool",
    "sandbox/overlay.py": "the overlay trial (can a preview run here?): one namespace and "
                          "bwrap, once per process, before any tool, waited for with its "
                          "own 20 s timeout and killed past it",
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
