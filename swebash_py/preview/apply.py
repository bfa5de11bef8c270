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

A directory the command renamed (root only: the overlay's ``redirect_dir``)
is renamed for real: every such source is judged first, then moved to a
temporary name (deepest first, so chains and swaps land right) and renamed
into place at its turn; its files keep their inodes, owners and hard links.
A change at a path whose real object was renamed away is done already.

A change whose real path differs from its ``base`` (or changed after the
preview began) is a conflict: it and everything beneath it are not applied,
and are returned to be shown. ``journal`` (optional) is told each path's prior
state before it is touched, for undo.
"""

from __future__ import annotations

import contextlib
import dataclasses
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
STAGED = ".swebash-apply-"


def apply(changes: ChangeSet, journal: Journal | None = None,
          overwrite: frozenset[Path] = frozenset()) -> ApplyReport:
    """Apply every change that does not conflict (or that the user said to
    ``overwrite``, after seeing the conflict); see the module docstring."""
    run = _Run(changes, journal, overwrite)
    try:
        run.stage_aliases()
        run.stage_moves()
        run.apply_all()
    finally:
        run.unstage()
    for change in sorted(run.dir_modes, key=lambda c: c.rel.count("/"), reverse=True):
        _set_meta(change.path, change)
    return run.report


class _Run:
    """One apply: what was skipped, staged and touched so far."""

    def __init__(self, changes: ChangeSet, journal: Journal | None,
                 overwrite: frozenset[Path]) -> None:
        self.changes, self.journal, self.overwrite = changes, journal, overwrite
        self.report = ApplyReport()
        self.skipped: list[Path] = []
        self.dir_modes: list[Change] = []
        self.ours: set[int] = set()  # inodes whose ctime we moved
        self.staged: dict[Path, Path] = {}  # a path: the temporary name of its inode
        self.moved: dict[Path, Path] = {}  # a real directory moved away: its temporary name
        self.placed: dict[Path, Path] = {}  # and where it is now, once renamed into place
        self.refused: dict[Path, str] = {}  # renamed directories whose source conflicts

    def _tmp(self, change: Change) -> Path:
        return change.root / f"{STAGED}{uuid.uuid4().hex[:12]}"

    def stage_aliases(self) -> None:
        """Before anything moves: a temporary name for each inode a change makes
        its path another name of (a moved or new name of a multiply linked file),
        so it is still there however the other names are changed on the way."""
        for change in self.changes.changes:
            if change.kind != "file" or change.in_place or change.link is not None:
                continue
            for alias in change.aliases:
                tmp = self._tmp(change)
                try:
                    os.link(change.root / alias, tmp)
                except OSError:
                    continue
                self.staged[change.path] = tmp
                self.ours.add(os.lstat(tmp).st_ino)
                break

    def stage_moves(self) -> None:
        """Directories the command renamed (root: the overlay's redirects):
        each real one is moved to a temporary name first, deepest first, so
        chains and swaps land right; its tree is recorded at both places."""
        moves = [c for c in self.changes.changes if c.moved_from is not None]
        refused = {c.path: why for c in moves if (why := self._source_conflict(c))}
        self.refused.update(refused)  # all judged before any moves (moving changes mtimes)
        for change in sorted(moves, key=lambda c: str(c.moved_from).count("/"), reverse=True):
            if change.path in refused:
                continue
            assert change.moved_from is not None
            source = change.root / change.moved_from
            if self.journal is not None:
                self.journal.before(change.path)
                self.journal.before(source)
                for dirpath, dirnames, filenames in os.walk(source):
                    for name in dirnames + filenames:
                        inside = os.path.relpath(os.path.join(dirpath, name), source)
                        self.journal.before(change.path / inside)
            tmp = self._tmp(change)
            os.rename(source, tmp)
            self.moved[source] = tmp
            self.staged[change.path] = tmp

    def _source_conflict(self, change: Change) -> str | None:
        if change.path in self.overwrite:
            return None
        assert change.moved_from is not None and change.moved_base is not None
        return conflict(dataclasses.replace(change, rel=change.moved_from, base=change.moved_base,
                                            action="delete", stale=False),
                        self.changes.start_ns, frozenset(self.ours))

    def unstage(self) -> None:
        """Whatever is still staged (an error on the way) goes back or away."""
        back = {tmp: source for source, tmp in self.moved.items() if source not in self.placed}
        for tmp in self.staged.values():
            with contextlib.suppress(OSError):
                if tmp in back:
                    os.rename(tmp, back[tmp])
                elif os.path.lexists(tmp):
                    os.unlink(tmp)

    def _moved_away(self, change: Change) -> bool:
        """``change``'s real path is no longer at its path: it lay in a real
        directory this apply renamed (staged, or already put elsewhere)."""
        if change.lower is None:
            return False
        real = change.root / change.lower
        sources = [src for src in self.moved if real.is_relative_to(src)]
        if not sources:
            return False
        source = max(sources, key=lambda p: len(p.parts))
        now = self.placed.get(source, self.moved[source]) / real.relative_to(source)
        return now != change.path

    def apply_all(self) -> None:
        for change in self.changes.changes:
            if change.path in self.refused:
                self.report.conflicts.append((change, self.refused[change.path]))
                self.skipped.append(change.path)
                continue
            if any(change.path.is_relative_to(s) for s in self.skipped):
                self.report.conflicts.append((change, INSIDE_SKIPPED))
                continue
            gone = change.moved_from is None and self._moved_away(change)
            if gone and change.action == "delete":
                self.report.applied.append(change)  # renamed away already
                continue
            why = None if change.path in self.overwrite or gone or \
                change.moved_from is not None else \
                conflict(change, self.changes.start_ns, frozenset(self.ours))
            if why is not None:
                self.report.conflicts.append((change, why))
                self.skipped.append(change.path)
                continue
            if self.journal is not None:
                self.journal.before(change.path)
                for alias in change.aliases:  # the inode's other names change too
                    self.journal.before(change.root / alias)
            if change.base.kind == "file" and change.base.nlink > 1:
                self.ours.add(change.base.ino)
            _apply_one(change, self.staged.pop(change.path, None))
            if change.moved_from is not None:
                self.placed[change.root / change.moved_from] = change.path
            if change.kind == "dir":
                self.dir_modes.append(change)
            self.report.applied.append(change)


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
        if change.moved_from is not None and staged is not None:
            if change.replace:
                remove(path)
            os.rename(staged, path)  # the real directory, renamed as the command did
        elif change.replace:
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
