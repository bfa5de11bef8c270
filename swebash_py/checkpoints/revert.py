"""Taking file changes back: plan per path, show, then restore.

For each path the changes are folded: the state to restore is the ``before``
of its first change, the state expected now is the ``after`` of its last. A
path whose current state differs from that expectation was changed since
(by the user, a command, another program): it is a *conflict*, restored only
when the caller says so explicitly. Folders that ``write_file`` created are
recorded too (created from nothing), so undo removes them when empty. Only
working-tree paths are written (never a git index).

Restoring runs in three passes so paths that depend on each other come back
whole: first, deepest first, what must go is removed (a file or symlink that
did not exist, a directory that did not exist -- only when it is empty: one
with what someone else put in it stays); then, parents first, what was there is put
back (directories, files atomically or, for a file with other names that was
written in place, in place again; symlinks, FIFOs; owners, bits and user
xattrs); last, directory bits deepest first and hard links re-made to the
partner each file had.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
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
        if _other_kind(self.current) or _other_kind(self.restore):
            return f"({shown}: {_describe(self.current)} -> {_describe(self.restore)})\n"
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


def _other_kind(state: FileState | None) -> bool:
    return state is None or state.what not in (None, "file")


def _describe(state: FileState | None) -> str:
    if state is None:
        return "something else"
    what = state.what
    if what is None:
        return "nothing"
    if what == "symlink":
        return f"symlink to {state.target}"
    mode = f" {state.mode:o}" if state.mode is not None else ""
    return f"{'directory' if what == 'dir' else what}{mode}"


def _text(state: FileState | None) -> str | None:
    if state is None or state.data is None:
        return None
    return state.data.decode("utf-8", "surrogateescape")


def _current(path: Path, full: bool = False) -> FileState | None:
    try:
        return FileState.of(path, full=full)
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
                                                  _current(path, change.after.full))
        entry.expected = change.after
        entry.change_ids.append(stored.id)
    return list(plans.values())


def _depth(entry: PathPlan) -> int:
    return len(entry.path.parts)


def restore(plans: list[PathPlan], overwrite: set[Path]) -> Outcome:
    """Restore every plan without a conflict, and the conflicts in ``overwrite``."""
    outcome = Outcome()
    todo = []
    for entry in plans:
        if entry.conflict and entry.path not in overwrite:
            outcome.skipped.append(entry.path)
        elif not entry.already:
            todo.append(entry)
    failed: dict[Path, str] = {}
    for step, order in ((_clear, True), (_put, False), (_finish, True)):
        for entry in sorted(todo, key=_depth, reverse=order):
            if entry.path in failed:
                continue
            try:
                step(entry)
            except OSError as exc:
                failed[entry.path] = exc.strerror or str(exc)
    for entry in plans:
        if entry.path in failed:
            outcome.failed.append((entry.path, failed[entry.path]))
        elif entry.path not in outcome.skipped:
            outcome.restored.append(entry.path)
    return outcome


def _kind_now(path: Path) -> str | None:
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _clear(entry: PathPlan) -> None:
    """Pass 1 (deepest first): remove what must not stay at the path."""
    now, want = _kind_now(entry.path), entry.restore.what
    if now is None or (now == want == "dir"):
        return
    if now == "dir":
        if want is None and any(os.scandir(entry.path)):
            return  # a folder that was created, kept: someone else's files are in it
        os.rmdir(entry.path)
    elif want is None or want == "dir" or (now == "other" and want == "file"):
        os.unlink(entry.path)


def _put(entry: PathPlan) -> None:
    """Pass 2 (parents first): put back what was there."""
    path, target = entry.path, entry.restore
    want = target.what
    if want is None:
        return
    if want == "dir":
        if _kind_now(path) != "dir":
            os.mkdir(path, 0o700)
        return
    if want == "file":
        assert target.data is not None
        if target.inode is not None and _inode(path) == target.inode:
            with open(path, "r+b") as fh:  # written in place: its other names come back too
                fh.write(target.data)
                fh.truncate()
        elif target.full:  # a command's paths: like its apply, temp + rename, no fsync each
            _replace_with(path, target.data)
        else:
            write_atomic(path, target.data, new_mode=target.mode)
        _set_meta(path, target)
        return
    tmp = path.parent / f".swebash-undo-{uuid.uuid4().hex[:12]}"
    try:
        if want == "symlink":
            os.symlink(target.target or "", tmp)
        else:
            os.mkfifo(tmp, 0o600)
        _set_meta(tmp, target)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _replace_with(path: Path, data: bytes) -> None:
    tmp = path.parent / f".swebash-undo-{uuid.uuid4().hex[:12]}"
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _finish(entry: PathPlan) -> None:
    """Pass 3 (deepest first): directory bits, and hard links re-made."""
    target = entry.restore
    if target.what == "dir":
        _set_meta(entry.path, target)
    elif target.what == "file" and target.partner is not None:
        _relink(entry.path, Path(target.partner), target)


def _relink(path: Path, partner: Path, target: FileState) -> None:
    """``path`` had ``partner`` as another name: link it again when the
    partner is still what ``path`` was (same bytes, bits, owner, xattrs)."""
    try:
        same = os.path.samefile(path, partner) or FileState.of(partner, full=True) != target
    except OSError:
        return
    if same:
        return
    tmp = path.parent / f".swebash-undo-{uuid.uuid4().hex[:12]}"
    os.link(partner, tmp)
    os.replace(tmp, path)


def _inode(path: Path) -> str | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}" if stat.S_ISREG(st.st_mode) else None


def _set_meta(path: Path, state: FileState) -> None:
    """Owner (as root), bits and user xattrs; a plain file record: bits only."""
    if not state.full:
        if state.mode is not None:
            os.chmod(path, state.mode)
        return
    if os.geteuid() == 0 and state.uid is not None and state.gid is not None:
        os.chown(path, state.uid, state.gid, follow_symlinks=False)
    if state.what == "symlink":
        return
    if state.mode is not None:
        os.chmod(path, state.mode)  # after chown, which drops set-id bits
    wanted = dict(state.xattrs)
    for name in os.listxattr(path, follow_symlinks=False):
        if name.startswith("user.") and name not in wanted:
            os.removexattr(path, name, follow_symlinks=False)
    for name, value in wanted.items():
        os.setxattr(path, name, value, follow_symlinks=False)
