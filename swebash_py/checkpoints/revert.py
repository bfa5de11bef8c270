"""Taking file changes back: plan per path, show, then restore.

For each path the changes are folded: the state to restore is the ``before``
of its first change, the state expected now is the ``after`` of its last. A
path whose current state differs from that expectation was changed since
(by the user, a command, another program): it is a *conflict*, restored only
when the caller says so explicitly. Only working-tree files are written (never
a git index), each atomically with its old permission bits; a file that did
not exist before is deleted (directories created for it stay).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from swebash_py.atomic import write_atomic
from swebash_py.checkpoints.model import FileState, StoredChange
from swebash_py.tools.edit import unified_diff


@dataclass
class PathPlan:
    """What undoing the changes to one path means."""

    path: Path
    restore: FileState
    expected: FileState
    current: FileState | None  # None: not a regular file any more
    change_ids: list[int] = field(default_factory=list)

    @property
    def conflict(self) -> bool:
        return self.current != self.expected

    @property
    def already(self) -> bool:
        """Already as it was (reverted by hand): nothing to write."""
        return self.current == self.restore

    def diff(self, shown: str) -> str:
        """From what is there now to what will be restored."""
        now = _text(self.current)
        if self.restore.data is None:
            return f"(delete {shown})\n" + unified_diff(now, "", shown)
        diff = unified_diff(now, _text(self.restore) or "", shown)
        if (self.current is not None and self.current.mode is not None
                and self.restore.mode is not None and self.current.mode != self.restore.mode):
            diff = f"(mode {self.current.mode:o} -> {self.restore.mode:o})\n" + diff
        return diff


@dataclass
class Outcome:
    restored: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)


def _text(state: FileState | None) -> str | None:
    if state is None or state.data is None:
        return None
    return state.data.decode("utf-8", "surrogateescape")


def _current(path: Path) -> FileState | None:
    try:
        return FileState.of(path)
    except OSError:
        return None


def plan(changes: list[StoredChange]) -> list[PathPlan]:
    """One plan per path, in the order the paths were first changed."""
    plans: dict[str, PathPlan] = {}
    for stored in sorted(changes, key=lambda c: c.id):
        change = stored.change
        entry = plans.get(change.path)
        if entry is None:
            path = Path(change.path)
            entry = plans[change.path] = PathPlan(path, change.before, change.after,
                                                  _current(path))
        entry.expected = change.after
        entry.change_ids.append(stored.id)
    return list(plans.values())


def restore(plans: list[PathPlan], overwrite: set[Path]) -> Outcome:
    """Restore every plan without a conflict, and the conflicts in ``overwrite``."""
    outcome = Outcome()
    for entry in plans:
        if entry.conflict and entry.path not in overwrite:
            outcome.skipped.append(entry.path)
            continue
        try:
            _restore_one(entry)
        except OSError as exc:
            outcome.failed.append((entry.path, exc.strerror or str(exc)))
            continue
        outcome.restored.append(entry.path)
    return outcome


def _restore_one(entry: PathPlan) -> None:
    if entry.already:
        return
    target = entry.restore
    if target.data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(entry.path)
        return
    write_atomic(entry.path, target.data, new_mode=target.mode)
    if target.mode is not None:
        os.chmod(entry.path, target.mode)
