"""Whether a project's ``.swebash/`` counts, and what it adds to the settings.

Decided once per run, before the settings are built: remembered answers
count; on a terminal an unanswered folder is asked about (once: the answer
is remembered); with no terminal it stays untrusted unless ``--trust``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swebash_py.project import trust
from swebash_py.project.settings import config_file, read_project_config


@dataclass
class ProjectStatus:
    """The project folder (if it has a ``.swebash/``), whether it is trusted, why."""

    root: Path | None = None
    trusted: bool = False
    reason: str = ""
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def commands_dir(self) -> Path | None:
        if self.root is None or not self.trusted:
            return None
        return self.root / trust.PROJECT_DIR / "commands"


Ask = Callable[[Path], bool | None]
NO_TERMINAL = "not trusted (no terminal to ask on; pass --trust to use it)"


def resolve_project(workspace: Path, *, trust_flag: bool = False,
                    ask: Ask | None = None) -> ProjectStatus:
    """The project's status; ``ask`` (None: no terminal) puts the question."""
    root = trust.project_root(workspace)
    if root is None:
        return ProjectStatus()
    remembered = trust.answer_for(root)
    if trust_flag:
        status = ProjectStatus(root, True, "--trust")
    elif remembered == "trusted":
        status = ProjectStatus(root, True, "trusted")
    elif remembered == "declined":
        status = ProjectStatus(root, False, "you chose not to trust it "
                                            "(ai config trust revoke to be asked again)")
    else:
        answer = ask(root) if ask is not None else None
        if answer is None:  # no terminal to ask on (or no answer): not this time
            status = ProjectStatus(root, False, NO_TERMINAL)
        else:
            trust.remember(root, "trusted" if answer else "declined")
            status = ProjectStatus(root, answer, "trusted" if answer else "not trusted")
    if status.trusted:
        status.config = read_project_config(root)
    return status


def describe_contents(root: Path) -> list[str]:
    """What a project's ``.swebash/`` holds, for the trust question."""
    lines: list[str] = []
    try:
        raw = read_project_config(root)
    except Exception as exc:  # shown, never fatal, before trust
        return [f"{config_file(root)}: {exc}"]
    from swebash_py.render.sanitize import one_line

    for name, server in (raw.get("mcp_servers") or {}).items():
        if isinstance(server, dict):
            what = server.get("url") or " ".join(
                [str(server.get("command", "")), *map(str, server.get("args") or [])])
            lines.append(one_line(f"MCP server {name}: {what}", 160))
    for key in ("allow", "deny"):
        for rule in (raw.get("permissions") or {}).get(key) or []:
            lines.append(one_line(f"{key} rule: {rule}", 160))
    for key in ("pre_tool", "post_tool"):
        for hook in (raw.get("hooks") or {}).get(key) or []:
            lines.append(one_line(f"{key} hook: {hook}", 160))
    commands = root / trust.PROJECT_DIR / "commands"
    if commands.is_dir():
        names = sorted(p.stem for p in commands.glob("*.md"))
        if names:
            lines.append(one_line("commands: " + ", ".join("/" + n for n in names), 160))
    return lines


def ask_on_terminal(root: Path) -> bool | None:
    """Put the trust question on the controlling terminal; None when it cannot."""
    from swebash_py.render.sanitize import neutralize
    from swebash_py.ui.terminal import ask_line

    lines = [f"This folder has its own swebash settings: {neutralize(str(root))}/"
             f"{trust.PROJECT_DIR}/",
             *(f"  {line}" for line in describe_contents(root) or ["(nothing that applies)"]),
             "They can run programs (MCP servers, hooks) and allow tool calls."]
    answer = ask_line("\r\n".join(["", *lines, "Trust this folder? [y]es / [n]o: "]))
    if answer is None:
        return None
    return answer.strip().lower() in ("y", "yes")


def project_decider(trust_flag: bool) -> Callable[[Path], ProjectStatus]:
    """How a question or the REPL decides whether the folder's ``.swebash/`` counts:
    ``--trust``, a remembered answer, or a question on the terminal."""
    def ask(root: Path) -> bool | None:
        from swebash_py import early_prompt

        early_prompt.hand_over()  # the question would print after the plain prompt
        return ask_on_terminal(root)

    def decide(workspace: Path) -> ProjectStatus:
        status = resolve_project(workspace, trust_flag=trust_flag, ask=ask)
        if status.reason == NO_TERMINAL:
            sys.stderr.write(f"ai: note: {status.root}/{trust.PROJECT_DIR}/ is not used: "
                             f"{status.reason}\n")
        return status

    return decide
