"""/undo, /rewind and `ai undo`: one flow, with the showing and asking injected.

``last_turn`` and ``from_turn`` say what would be taken back; ``take_back``
shows each file's diff (from what is there now to what comes back), notes
that shell commands' changes are not tracked when the turns ran any, asks
once, then asks again for each file changed since swebash wrote it (never
overwritten silently; with ``yes`` and nobody to ask they are left alone),
restores, and marks the restored changes reverted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swebash_py.checkpoints.revert import Outcome, PathPlan, plan, restore
from swebash_py.fs.workspace import shown_path

Show = Callable[[str], None]
Ask = Callable[[str], Awaitable[bool]]
COMMANDS_NOTE = ("Note: shell commands ran in {what}; changes they made outside a preview "
                 "are not tracked and are not undone (applied previews are, above).")


@dataclass
class TakeBack:
    """What undo or rewind would restore."""

    title: str
    plans: list[PathPlan]
    ran_commands: bool
    first_seq: int


def _quote(text: str) -> str:
    line = " ".join(text.split())
    return f"“{line[:60]}{'…' if len(line) > 60 else ''}”"


def last_turn(store: Any, session_id: str) -> TakeBack | None:
    """The latest turn whose file changes are not yet undone."""
    turn = store.last_changed_turn(session_id)
    if turn is None:
        return None
    changes = [c for c in store.changes_since(session_id, turn.seq) if c.turn_id == turn.id]
    ran = store.turns_ran_commands(session_id, turn.seq, turn.seq)
    return TakeBack(f"turn {turn.seq} {_quote(turn.user_text)}", plan(changes), ran, turn.seq)


def from_turn(store: Any, session_id: str, seq: int) -> TakeBack:
    """Everything turns ``seq`` and later changed (for /rewind)."""
    changes = store.changes_since(session_id, seq)
    ran = store.turns_ran_commands(session_id, seq, 1 << 62)
    return TakeBack(f"turns {seq} and later", plan(changes), ran, seq)


async def take_back(store: Any, back: TakeBack, workspace: Path, show: Show, ask: Ask | None,
                    *, question: str = "Undo these changes?",
                    always_ask: bool = False) -> Outcome | None:
    """Show, ask, restore. ``ask=None``: nobody to ask (``--yes``): go ahead, but leave
    files changed since alone. Returns None when the user said no."""
    ws = workspace.resolve()
    for entry in back.plans:
        shown = shown_path(entry.path, ws)
        if entry.conflict:
            show(f"! {shown} was changed since swebash wrote it (by you or a command); "
                 "undoing would turn what is there now into:")
        show(entry.diff(shown).rstrip("\n") or f"({shown}: nothing to change)")
    if back.ran_commands:
        show(COMMANDS_NOTE.format(what="this turn" if "and later" not in back.title
                                  else back.title))
    if not back.plans and not always_ask:
        return Outcome()
    if ask is not None and not await ask(f"{question} [y/N] "):
        return None
    overwrite: set[Path] = set()
    for entry in (p for p in back.plans if p.conflict):
        shown = shown_path(entry.path, ws)
        if ask is None:
            show(f"left alone: {shown} (changed since; undo it in a terminal to choose)")
        elif await ask(f"Overwrite {shown}, which was changed since? [y/N] "):
            overwrite.add(entry.path)
    outcome = restore(back.plans, overwrite, [ws])  # the one writer, walked from the workspace
    restored = set(outcome.restored)
    store.mark_reverted([i for p in back.plans if p.path in restored for i in p.change_ids])
    _summary(outcome, ws, show)
    return outcome


def _summary(outcome: Outcome, ws: Path, show: Show) -> None:
    names = [shown_path(p, ws) for p in outcome.restored]
    if names:
        show(f"restored {len(names)} file{'s' if len(names) != 1 else ''}: "
             + ", ".join(names[:10]) + (" …" if len(names) > 10 else ""))
    for path in outcome.skipped:
        show(f"not restored (changed since): {shown_path(path, ws)}")
    for path, why in outcome.failed:
        show(f"could not restore {shown_path(path, ws)}: {why}")


def is_yes(line: str) -> bool:
    return line.strip().lower() in ("y", "yes")
