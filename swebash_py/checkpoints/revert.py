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

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from swebash_py.checkpoints.model import FileState, StoredChange, new_file_mode
from swebash_py.fs.writer import Folder, Meta, Writer, fill_bytes
from swebash_py.text.diffs import unified_diff


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


def restore(plans: list[PathPlan], overwrite: set[Path], roots: Iterable[Path] = ()) -> Outcome:
    """Restore every plan without a conflict, and the conflicts in ``overwrite``,
    through the one writer walked from ``roots`` (the workspace): a folder on
    the way that is a symlink now was swapped in since, and is never followed
    (the path fails with the writer's ``ParentMoved`` message)."""
    outcome = Outcome()
    todo = []
    for entry in plans:
        if entry.conflict and entry.path not in overwrite:
            outcome.skipped.append(entry.path)
        elif not entry.already:
            todo.append(entry)
    failed: dict[Path, str] = {}
    with Writer(roots) as writer:
        for step, order in ((_clear, True), (_put, False), (_finish, True)):
            for entry in sorted(todo, key=_depth, reverse=order):
                if entry.path in failed:
                    continue
                try:
                    step(writer, entry)
                except OSError as exc:
                    failed[entry.path] = exc.strerror or str(exc)
    for entry in plans:
        if entry.path in failed:
            outcome.failed.append((entry.path, failed[entry.path]))
        elif entry.path not in outcome.skipped:
            outcome.restored.append(entry.path)
    return outcome


def _kind_now(writer: Writer, path: Path) -> str | None:
    try:
        mode = writer.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _clear(writer: Writer, entry: PathPlan) -> None:
    """Pass 1 (deepest first): remove what must not stay at the path."""
    now, want = _kind_now(writer, entry.path), entry.restore.what
    if now is None or (now == want == "dir"):
        return
    if now == "dir":
        if want is None and any(os.scandir(entry.path)):
            return  # a folder that was created, kept: someone else's files are in it
        writer.rmdir(entry.path)
    elif want is None or want == "dir" or (now == "other" and want == "file"):
        writer.unlink(entry.path)


def _put(writer: Writer, entry: PathPlan) -> None:
    """Pass 2 (parents first): put back what was there."""
    path, target = entry.path, entry.restore
    want = target.what
    if want is None:
        return
    if want == "dir":
        if _kind_now(writer, path) != "dir":
            writer.mkdir(path, 0o700)
        return
    if want == "file":
        assert target.data is not None
        if target.inode is not None and _inode(writer, path) == target.inode:
            writer.write_over(path, fill_bytes(target.data))  # its other names come back too
        else:  # an edit's file is fsynced; a command's paths, like its apply, are not
            mode = target.mode if target.mode is not None else new_file_mode()
            if not target.full:  # as edits do: a folder removed since is made again
                writer.makedirs(path.parent)
            writer.write_file(path, fill_bytes(target.data), Meta(mode=mode),
                              keep_mode=True, sync=not target.full, prefix=".swebash-undo-")
        _set_meta(writer, path, target)
        return
    writer.place(path, lambda folder, tmp: _make_special(folder, tmp, target),
                 prefix=".swebash-undo-")


def _make_special(folder: Folder, tmp: str, target: FileState) -> None:
    if target.what == "symlink":
        folder.symlink(target.target or "", tmp)
    else:
        folder.mkfifo(tmp)
    folder.set_meta(tmp, _meta(target), symlink=target.what == "symlink")


def _finish(writer: Writer, entry: PathPlan) -> None:
    """Pass 3 (deepest first): directory bits, and hard links re-made."""
    target = entry.restore
    if target.what == "dir":
        _set_meta(writer, entry.path, target)
    elif target.what == "file" and target.partner is not None:
        _relink(writer, entry.path, Path(target.partner), target)


def _relink(writer: Writer, path: Path, partner: Path, target: FileState) -> None:
    """``path`` had ``partner`` as another name: link it again when the
    partner is still what ``path`` was (same bytes, bits, owner, xattrs)."""
    try:
        same = os.path.samefile(path, partner) or FileState.of(partner, full=True) != target
    except OSError:
        return
    if same:
        return

    def link(folder: Folder, tmp: str) -> None:
        with writer.at(partner) as (first, name):
            first.link(name, folder, tmp)

    writer.place(path, link, prefix=".swebash-undo-")


def _inode(writer: Writer, path: Path) -> str | None:
    try:
        st = writer.lstat(path)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}" if stat.S_ISREG(st.st_mode) else None


def _meta(state: FileState) -> Meta:
    """Owner (as root), bits and user xattrs; a plain file record: bits only."""
    if not state.full:
        return Meta(mode=state.mode)
    own = os.geteuid() == 0 and state.uid is not None and state.gid is not None
    return Meta(mode=state.mode, uid=state.uid if own and state.uid is not None else -1,
                gid=state.gid if own and state.gid is not None else -1,
                xattrs=tuple(state.xattrs))


def _set_meta(writer: Writer, path: Path, state: FileState) -> None:
    writer.set_meta(path, _meta(state), symlink=state.what == "symlink")
