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

Every write goes through the one writer (``swebash_py.fs.writer``): each
path's folders are walked by descriptor from its root, no symlink followed.

A change whose real path differs from its ``base`` (or changed after the
preview began), or whose folder on the way is now a symlink (``MOVED``: the
writer's ``ParentMoved``, at the check or at the write itself), is a
conflict: it and everything beneath it are not applied, and are returned to
be shown (and asked about again; a swapped folder stays unwritten whatever
the answer). ``journal`` (optional) is told each path's prior
state before it is touched, for undo.
"""

from __future__ import annotations

import contextlib
import dataclasses
import filecmp
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from swebash_py.fs.writer import Folder, Meta, ParentMoved, Writer, apply_meta, fill_from
from swebash_py.preview.changes import Base, Change, ChangeSet, kind_of


class Journal(Protocol):
    def before(self, path: Path) -> None:
        """Remember what is at ``path`` (and beneath it) before it changes."""
        ...


@dataclass
class ApplyReport:
    applied: list[Change] = field(default_factory=list)
    conflicts: list[tuple[Change, str]] = field(default_factory=list)


MOVED = "a folder on the way is now a symlink; never written through"


def _base_now(writer: Writer, path: Path) -> Base:
    """How ``path`` looks now, reached by the writer's walk (``ParentMoved``:
    a folder on the way was swapped)."""
    try:
        return Base.from_stat(writer.lstat(path))
    except (FileNotFoundError, NotADirectoryError):
        return Base(None)


def conflict(change: Change, start_ns: int, writer: Writer,
             ours: frozenset[int] = frozenset()) -> str | None:
    """Why ``change`` must not be applied now (None: it may). ``ours``: inodes
    this apply itself linked or unlinked (their ctime moved because of us)."""
    if change.stale:
        return "changed in the workspace after the preview began"
    try:
        now = _base_now(writer, change.path)
    except ParentMoved:
        return MOVED
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
        try:
            run.stage_aliases()
            run.stage_moves()
            run.apply_all()
        finally:
            run.unstage()
        run.set_dir_modes()
    finally:
        run.writer.close()
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
        # every write below goes through the one writer, walked from the roots
        self.writer = Writer(c.root for c in changes.changes)

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
                    self.writer.link(change.root / alias, tmp)
                except OSError:
                    continue
                self.staged[change.path] = tmp
                self.ours.add(self.writer.lstat(tmp).st_ino)
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
            try:
                self.writer.rename(source, tmp)
            except ParentMoved:
                self.refused[change.path] = MOVED
                continue
            self.moved[source] = tmp
            self.staged[change.path] = tmp

    def _source_conflict(self, change: Change) -> str | None:
        if change.path in self.overwrite:
            return None
        assert change.moved_from is not None and change.moved_base is not None
        return conflict(dataclasses.replace(change, rel=change.moved_from, base=change.moved_base,
                                            action="delete", stale=False),
                        self.changes.start_ns, self.writer, frozenset(self.ours))

    def unstage(self) -> None:
        """Whatever is still staged (an error on the way) goes back or away."""
        back = {tmp: source for source, tmp in self.moved.items() if source not in self.placed}
        for tmp in self.staged.values():
            with contextlib.suppress(OSError):
                if tmp in back:
                    self.writer.rename(tmp, back[tmp])
                elif self.writer.exists(tmp):
                    self.writer.unlink(tmp)

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
                conflict(change, self.changes.start_ns, self.writer, frozenset(self.ours))
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
            try:
                _apply_one(self.writer, change, self.staged.pop(change.path, None))
            except ParentMoved:  # swapped after the check: still never followed
                self.report.conflicts.append((change, MOVED))
                self.skipped.append(change.path)
                continue
            if change.moved_from is not None:
                self.placed[change.root / change.moved_from] = change.path
            if change.kind == "dir":
                self.dir_modes.append(change)
            self.report.applied.append(change)

    def set_dir_modes(self) -> None:
        """Last, deepest first: a read-only directory could still be filled."""
        for change in sorted(self.dir_modes, key=lambda c: c.rel.count("/"), reverse=True):
            try:
                self.writer.set_meta(change.path, _meta(change))
            except ParentMoved:
                self.report.conflicts.append((change, MOVED))


def _kind(writer: Writer, path: Path) -> str | None:
    try:
        return kind_of(writer.lstat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _apply_one(writer: Writer, change: Change, staged: Path | None = None) -> None:
    """One change, through the one writer (a folder on the way swapped for a
    symlink raises ``ParentMoved``: nothing is written)."""
    path = change.path
    if change.action == "delete":
        writer.remove(path)
        return
    if change.kind == "dir":
        _apply_dir(writer, change, staged)
        return
    if staged is not None:  # another name of a real inode: that inode, as changed
        assert change.source is not None
        if not filecmp.cmp(change.source, staged, shallow=False):
            writer.write_over(staged, fill_from(change.source))
        writer.set_meta(staged, _meta(change))
        if _kind(writer, path) == "dir":
            writer.remove(path)
        writer.rename(staged, path)
        return
    if change.link is None and change.kind == "file" and (
            change.in_place or (not change.content and _kind(writer, path) == "file")):
        if change.content:
            assert change.source is not None
            writer.write_over(path, fill_from(change.source))
        writer.set_meta(path, _meta(change))  # same inode, like chmod or ``>>``
        return
    writer.place(path, lambda folder, tmp: _make(writer, change, folder, tmp),
                 replace_dir=True, prefix=STAGED)


def _apply_dir(writer: Writer, change: Change, staged: Path | None) -> None:
    path = change.path
    if change.moved_from is not None and staged is not None:
        if change.replace:
            writer.remove(path)
        writer.rename(staged, path)  # the real directory, renamed as the command did
    elif change.replace:
        writer.remove(path)
        writer.mkdir(path, 0o700)
    elif _kind(writer, path) != "dir":
        writer.mkdir(path, 0o700)


def _make(writer: Writer, change: Change, folder: Folder, tmp: str) -> None:
    """The changed object under the temporary name ``tmp`` in ``folder``."""
    if change.link is not None:  # a later member of a hard-link group
        with writer.at(change.root / change.link) as (first, name):
            first.link(name, folder, tmp)
    elif change.kind == "symlink":
        folder.symlink(change.target or "", tmp)
        folder.set_meta(tmp, _meta(change, fresh=True), symlink=True)
    elif change.kind == "fifo":
        folder.mkfifo(tmp)
        folder.set_meta(tmp, _meta(change, fresh=True))
    else:
        assert change.source is not None
        fd = folder.create(tmp)
        try:
            fill_from(change.source, change.size)(fd)
            apply_meta(fd, _meta(change, fresh=True))
        finally:
            os.close(fd)


def _meta(change: Change, *, fresh: bool = False) -> Meta:
    """Owner (as root), bits and user xattrs; ``fresh``: we just made it (it is
    ours and has no xattrs yet)."""
    own = os.geteuid() == 0 and change.uid >= 0 and \
        not (fresh and (change.uid, change.gid) == (0, os.getegid()))
    return Meta(mode=change.mode, uid=change.uid if own else -1,
                gid=change.gid if own else -1, xattrs=change.xattrs, fresh=fresh)
