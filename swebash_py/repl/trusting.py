"""`/trust`: whether this folder's ``.swebash/`` settings count, and changing that.

The answer goes to the same store as ``ai config trust`` (and the question
asked at start-up). The settings of a run are decided once, before its MCP
servers, hooks, rules and commands are built, so a change takes effect when
the REPL is started again (``ai -c`` continues this conversation); the
running session keeps what it started with, and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from swebash_py.config.paths import PROJECT_DIR, project_root
from swebash_py.project import trust
from swebash_py.project.loading import describe_contents

if TYPE_CHECKING:
    from swebash_py.repl.session import Repl

USAGE = "usage: /trust (this folder's state), /trust add, /trust revoke"
RESTART = "restart to apply it (`ai -c` continues this conversation)"


def folder(repl: Repl) -> tuple[Path, bool]:
    """The folder in question (the one whose ``.swebash/`` applies, else the
    workspace) and whether it has a ``.swebash/``."""
    workspace = repl.settings.workspace.resolve()
    root = project_root(workspace)
    return (root, True) if root is not None else (workspace, False)


def in_use(repl: Repl) -> bool:
    project = repl.settings.project
    return bool(project is not None and project.root is not None and project.trusted)


async def trust_command(repl: Repl, arg: str) -> None:
    path, has_dir = folder(repl)
    if arg == "":
        show(repl, path, has_dir)
    elif arg == "add":
        trust.remember(path, "trusted")
        repl.say(f"trusted {path}")
        if not has_dir:
            repl.say(f"(it has no {PROJECT_DIR}/ yet: nothing to load)", "dim")
        elif not in_use(repl):
            repl.say(f"its {PROJECT_DIR}/ settings are not loaded in this session: "
                     f"{RESTART}", "yellow")
    elif arg == "revoke":
        if not trust.revoke(str(path)):
            repl.say(f"{path} was neither trusted nor declined", "dim")
            return
        repl.say(f"forgot the answer about {path} (it is asked about again at start)")
        if in_use(repl):
            repl.say(f"this session still uses its {PROJECT_DIR}/ settings: {RESTART}",
                     "yellow")
    else:
        repl.say(USAGE, "red")


def show(repl: Repl, path: Path, has_dir: bool) -> None:
    answer = trust.answer_for(path)
    remembered = {"trusted": "trusted", "declined": "declined (not trusted)",
                  None: "not asked yet"}[answer]
    repl.say(f"{path}: {remembered}")
    if not has_dir:
        repl.say(f"(no {PROJECT_DIR}/ here: nothing to trust yet)", "dim")
        return
    for line in describe_contents(path):
        repl.say(f"  {line}", "dim")
    if changed := trust.changes(path):  # trust binds to what the settings held
        repl.say("its settings changed since you trusted them (asked again at start; "
                 "/trust add trusts them as they are now):", "yellow")
        for line in changed:
            repl.say(f"  {line}", "yellow")
    used = in_use(repl)
    repl.say(f"its {PROJECT_DIR}/ settings are "
             + ("used in this session" if used else "not used in this session"), "dim")
    if (answer == "trusted") != used:
        repl.say(f"(changed since this session started: {RESTART})", "yellow")
    elif not used:
        repl.say("/trust add trusts it (same as `ai config trust add`)", "dim")
