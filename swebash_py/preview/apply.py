"""Apply a preview's change set to the real roots, exactly, or refuse per path.

Per change, in order (parents before children): deletions remove the path
(a directory with its tree); a directory that replaces what was there
removes it first; files are written to a temporary name in the same
directory (streamed, never loaded), given their mode, owner (as root) and
user xattrs, then renamed over the path (atomic per file); later members of
a hard-link group are linked to the first; symlinks and FIFOs the same way.
Directory modes are set last, deepest first (a read-only directory can still
be filled first).

A change ``in_place`` (a file with other names that the command wrote
through, not replaced) writes the real inode itself: bytes streamed over it,
then truncated; bits, owner and xattrs set on it; so all its names change, as
they would have in a direct run. Known limit: without root the overlay has no
inode index (``userxattr`` turns it off), a copy-up breaks such a file's hard
links and records no origin, so an in-place write cannot be told from a
replacement; apply then changes only the name the command changed.

A change whose real path differs from its ``base`` (or changed after the
preview began) is a conflict: it and everything beneath it are not applied,
and are returned to be shown. ``journal`` (optional) is told each path's prior
state before it is touched, for undo.
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import shutil
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from swebash_py.preview.changes import Base, Change, ChangeSet, kind_of


class Journal(Protocol):
    def before(self, path: Path) -> None:
        """Remember what is at ``path`` (and beneath it) before it changes."""
        ...


@dataclass
class ApplyReport:
    applied: list[Change] = field(default_factory=list)
    conflicts: list[tuple[Change, str]] = field(default_factory=list)


def conflict(change: Change, start_ns: int, ours: frozenset[int] = frozenset()) -> str | None:
    """Why ``change`` must not be applied now (None: it may). ``ours``: inodes
    this apply itself linked or unlinked (their ctime moved because of us)."""
    if change.stale:
        return "changed in the workspace after the preview began"
    now = Base.of(change.path)
    ctime = change.base.ctime_ns if now.ino in ours else now.ctime_ns
    if (now.kind, now.size, now.mtime_ns, ctime, now.ino) != \
            (change.base.kind, change.base.size, change.base.mtime_ns, change.base.ctime_ns,
             change.base.ino):
        return "changed in the workspace since the preview"
    if now.kind == "dir" and (change.action == "delete" or change.replace):
        for dirpath, dirnames, filenames in os.walk(change.path):
            for name in dirnames + filenames:
                try:
                    if os.lstat(os.path.join(dirpath, name)).st_ctime_ns > start_ns:
                        return "something inside it changed after the preview began"
                except OSError:
                    return "something inside it changed after the preview began"
    return None


INSIDE_SKIPPED = "inside a path that was not applied"


def apply(changes: ChangeSet, journal: Journal | None = None,
          overwrite: frozenset[Path] = frozenset()) -> ApplyReport:
    """Apply every change that does not conflict (or that the user said to
    ``overwrite``, after seeing the conflict); see the module docstring."""
    report = ApplyReport()
    skipped: list[Path] = []
    dir_modes: list[Change] = []
    ours: set[int] = set()
    staged = _stage_aliases(changes)
    ours.update(os.lstat(tmp).st_ino for tmp in staged.values())  # their ctime moved
    try:
        _apply_all(changes, journal, overwrite, report, skipped, dir_modes, ours, staged)
    finally:
        for tmp in staged.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    for change in sorted(dir_modes, key=lambda c: c.rel.count("/"), reverse=True):
        _set_meta(change.path, change)
    return report


def _stage_aliases(changes: ChangeSet) -> dict[Path, Path]:
    """Before anything moves: a temporary name for each inode a change makes
    its path another name of (a moved or new name of a multiply linked file),
    so it is still there however the other names are changed on the way."""
    staged: dict[Path, Path] = {}
    for change in changes.changes:
        if change.kind != "file" or change.in_place or change.link is not None:
            continue
        for alias in change.aliases:
            tmp = change.root / f".swebash-apply-{uuid.uuid4().hex[:12]}"
            try:
                os.link(change.root / alias, tmp)
            except OSError:
                continue
            staged[change.path] = tmp
            break
    return staged


def _apply_all(changes: ChangeSet, journal: Journal | None, overwrite: frozenset[Path],
               report: ApplyReport, skipped: list[Path], dir_modes: list[Change],
               ours: set[int], staged: dict[Path, Path]) -> None:
    for change in changes.changes:
        if any(change.path.is_relative_to(s) for s in skipped):
            report.conflicts.append((change, INSIDE_SKIPPED))
            continue
        why = None if change.path in overwrite else \
            conflict(change, changes.start_ns, frozenset(ours))
        if why is not None:
            report.conflicts.append((change, why))
            skipped.append(change.path)
            continue
        if journal is not None:
            journal.before(change.path)
            for alias in change.aliases:  # the inode's other names change too
                journal.before(change.root / alias)
        if change.base.kind == "file" and change.base.nlink > 1:
            ours.add(change.base.ino)
        _apply_one(change, staged.pop(change.path, None))
        if change.kind == "dir":
            dir_modes.append(change)
        report.applied.append(change)


def remove(path: Path) -> None:
    """Remove whatever is at ``path`` (a directory with its tree)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISDIR(st.st_mode):
        _make_removable(path)
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _make_removable(top: Path) -> None:
    """Read-only directories inside a tree would stop rmtree (non-root)."""
    if os.geteuid() == 0:
        return
    for dirpath, _dirs, _files in os.walk(top):
        mode = stat.S_IMODE(os.lstat(dirpath).st_mode)
        if mode & 0o700 != 0o700:
            os.chmod(dirpath, mode | 0o700)


def _apply_one(change: Change, staged: Path | None = None) -> None:
    path = change.path
    if change.action == "delete":
        remove(path)
        return
    if change.kind == "dir":
        if change.replace:
            remove(path)
            os.mkdir(path, 0o700)
        elif not os.path.isdir(path):
            os.mkdir(path, 0o700)
        return
    tmp = path.parent / f".swebash-apply-{uuid.uuid4().hex[:12]}"
    try:
        if staged is not None:  # another name of a real inode: that inode, as changed
            assert change.source is not None
            if not filecmp.cmp(change.source, staged, shallow=False):
                write_over(change.source, str(staged))
            _set_meta(staged, change)
            os.rename(staged, tmp)
        elif change.link is not None:
            os.link(change.root / change.link, tmp)
        elif change.kind == "symlink":
            os.symlink(change.target or "", tmp)
        elif change.kind == "fifo":
            os.mkfifo(tmp, 0o600)
        elif change.in_place or (not change.content
                                 and kind_of(os.lstat(path).st_mode) == "file"):
            if change.content:
                assert change.source is not None
                write_over(change.source, str(path))
            _set_meta(path, change)  # same inode, like chmod or ``>>``
            return
        else:
            assert change.source is not None
            copy_file(change.source, str(tmp), change.size)
        if change.link is None and staged is None:
            _set_meta(tmp, change, fresh=True)
        if os.path.isdir(path) and not os.path.islink(path):
            remove(path)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def copy_file(source: str, target: str, size: int) -> None:
    """Stream ``source`` into a new ``target`` (in the kernel where it can)."""
    src = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            left = size
            while left > 0:
                try:
                    sent = os.copy_file_range(src, dst, min(left, 1 << 30))
                except OSError:  # another filesystem pair: sendfile, then plain reads
                    sent = os.sendfile(dst, src, None, min(left, 1 << 30))
                if sent == 0:
                    break
                left -= sent
            while chunk := os.read(src, 1 << 20):  # grown since: the rest too
                os.write(dst, chunk)
        finally:
            os.close(dst)
    finally:
        os.close(src)


def write_over(source: str, target: str) -> None:
    """Stream ``source`` over the existing ``target`` (same inode), then cut it."""
    with open(source, "rb") as src, open(target, "r+b") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
        dst.truncate()


def _set_meta(path: Path, change: Change, *, fresh: bool = False) -> None:
    """Owner (as root), bits and user xattrs; ``fresh``: we just made it (it is
    ours and has no xattrs yet)."""
    if os.geteuid() == 0 and change.uid >= 0 and \
            not (fresh and (change.uid, change.gid) == (0, os.getegid())):
        os.chown(path, change.uid, change.gid, follow_symlinks=False)
    if change.kind == "symlink":
        return
    os.chmod(path, change.mode)
    wanted = dict(change.xattrs)
    try:
        present = [] if fresh else [n for n in os.listxattr(path) if n.startswith("user.")]
    except OSError:
        present = []
    for name in present:
        if name not in wanted:
            os.removexattr(path, name)
    for name, value in wanted.items():
        os.setxattr(path, name, value)
