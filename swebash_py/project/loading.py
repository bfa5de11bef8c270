"""Whether a project's ``.swebash/`` counts, and what it adds to the settings.

Decided once per run, before the settings are built: remembered answers
count while the settings hold what they held when trusted (``fingerprint``);
on a terminal an unanswered folder, or a trusted one whose settings changed,
is asked about (the difference shown; the answer remembered); with no
terminal it stays untrusted unless ``--trust``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from swebash_py.config.paths import PROJECT_DIR, project_root
from swebash_py.config.project import ProjectStatus, read_project_config
from swebash_py.project import trust
from swebash_py.project.fingerprint import describe_contents, take

__all__ = ["describe_contents", "project_decider", "resolve_project"]


# the question: the folder, and what changed since it was trusted ([]: never asked)
Ask = Callable[[Path, list[str]], bool | None]
NO_TERMINAL = "not trusted (no terminal to ask on; pass --trust to use it)"
CHANGED = ("its settings changed since you trusted it ({what}); not used until you are "
           "asked again on a terminal (or pass --trust)")


def resolve_project(workspace: Path, *, trust_flag: bool = False,
                    ask: Ask | None = None) -> ProjectStatus:
    """The project's status; ``ask`` (None: no terminal) puts the question."""
    root = project_root(workspace)
    if root is None:
        return ProjectStatus()
    remembered = trust.answer_for(root)
    seen = take(root, lines=False)
    changed = trust.changes(root, seen) if remembered == "trusted" else []
    if trust_flag:
        status = ProjectStatus(root, True, "--trust")
    elif remembered == "trusted" and not changed:
        status = ProjectStatus(root, True, "trusted")
    elif remembered == "declined":
        status = ProjectStatus(root, False, "you chose not to trust it "
                                            "(ai config trust revoke to be asked again)")
    else:
        answer = ask(root, changed) if ask is not None else None
        if answer is None:  # no terminal to ask on (or no answer): not this time
            reason = CHANGED.format(what="; ".join(changed[:3]) + (
                f"; {len(changed) - 3} more" if len(changed) > 3 else "")) if changed else (
                NO_TERMINAL)
            status = ProjectStatus(root, False, reason)
        else:
            trust.remember(root, "trusted" if answer else "declined", seen)
            status = ProjectStatus(root, answer, "trusted" if answer else "not trusted")
    if status.trusted:
        status.config = read_project_config(root)
        if status.reason != "--trust" and take(root, lines=False).digest != seen.digest:
            # changed while it was being asked about or read: what was trusted is not this
            status = ProjectStatus(root, False, "its settings changed while they were read; "
                                                "not used this time")
    return status


def question_lines(root: Path, changed: list[str]) -> list[str]:
    """The trust question's text: what the folder holds, or what changed in it."""
    from swebash_py.text.sanitize import neutralize, one_line

    where = f"{neutralize(str(root))}/{PROJECT_DIR}/"
    if changed:
        return [f"This folder's swebash settings changed since you trusted them: {where}",
                *(f"  {one_line(line, 160)}" for line in changed[:40]),
                *([f"  … {len(changed) - 40} more"] if len(changed) > 40 else []),
                "They can run programs (MCP servers, hooks) and allow tool calls.",
                "Trust this folder again? [y]es / [n]o: "]
    contents = describe_contents(root)
    return [f"This folder has its own swebash settings: {where}",
            *(f"  {line}" for line in contents or ["(nothing that applies)"]),
            "They can run programs (MCP servers, hooks) and allow tool calls.",
            "Trust this folder? [y]es / [n]o: "]


def ask_on_terminal(root: Path, changed: list[str]) -> bool | None:
    """Put the trust question on the controlling terminal; None when it cannot."""
    from swebash_py.ui.terminal import ask_line

    answer = ask_line("\r\n".join(["", *question_lines(root, changed)]))
    if answer is None:
        return None
    return answer.strip().lower() in ("y", "yes")


def project_decider(trust_flag: bool, before_asking: Callable[[], None] = lambda: None
                    ) -> Callable[[Path], ProjectStatus]:
    """How a question or the REPL decides whether the folder's ``.swebash/`` counts:
    ``--trust``, a remembered answer, or a question on the terminal (``before_asking``
    runs first: the CLI takes its early plain prompt down, which the question would
    print after)."""
    def ask(root: Path, changed: list[str]) -> bool | None:
        before_asking()
        return ask_on_terminal(root, changed)

    def decide(workspace: Path) -> ProjectStatus:
        status = resolve_project(workspace, trust_flag=trust_flag, ask=ask)
        if status.root is not None and not status.trusted and status.reason.startswith(
                ("not trusted (no terminal", "its settings changed")):
            sys.stderr.write(f"ai: note: {status.root}/{PROJECT_DIR}/ is not used: "
                             f"{status.reason}\n")
        return status

    return decide
