"""What an apply replaced, so it can be undone exactly.

``before(path)`` (called by ``apply`` before it touches a path) records what
is there: absence, a directory (mode, owner, xattrs; its whole tree when it
is about to be removed), a file (streamed into the backup directory: big files
are never loaded), a symlink, a FIFO. ``undo()`` puts every recorded path back:
first whatever is at each recorded path now is removed (a directory is
rebuilt whole from its recorded tree), then the priors are restored parents
first (files by temp + rename, hard links re-linked), then directory modes,
deepest first. Every write to the tree goes through the one writer
(``swebash_py.fs.writer``): a folder swapped for a symlink is never followed.
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from swebash_py.fs.folder import user_xattrs
from swebash_py.fs.writer import Folder, Meta, Writer, apply_meta, fill_from
from swebash_py.preview.changes import kind_of


@dataclass(frozen=True)
class Prior:
    path: Path
    kind: str | None  # None: there was nothing
    mode: int = 0
    uid: int = -1
    gid: int = -1
    backup: str | None = None
    target: str | None = None
    inode: tuple[int, int] = (0, 0)
    nlink: int = 1
    xattrs: tuple[tuple[str, bytes], ...] = ()


class ApplyJournal:
    """Priors of every path an apply touched; backups under ``backup_dir``."""

    def __init__(self, backup_dir: Path, roots: Iterable[Path] = ()) -> None:
        self.backup_dir = backup_dir
        self.roots = list(roots)  # where undo's writer walks from (``/`` for the rest)
        self.priors: dict[Path, Prior] = {}

    def before(self, path: Path) -> None:
        if path in self.priors or any(path.is_relative_to(p) for p in self._removed()):
            return
        self._record(path, whole=True)

    def _removed(self) -> list[Path]:
        return [p for p, prior in self.priors.items() if prior.kind == "dir"]

    def _record(self, path: Path, whole: bool) -> None:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            self.priors[path] = Prior(path, None)
            return
        kind = kind_of(st.st_mode)
        backup = target = None
        if kind == "file":
            self.backup_dir.mkdir(parents=True, exist_ok=True)
            backup = str(self.backup_dir / uuid.uuid4().hex)
            shutil.copyfile(path, backup, follow_symlinks=False)  # into our backup dir
        elif kind == "symlink":
            target = os.readlink(path)
        self.priors[path] = Prior(path, kind, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid,
                                  backup, target, (st.st_dev, st.st_ino), st.st_nlink,
                                  user_xattrs(path) if kind != "symlink" else ())
        if kind == "dir" and whole:
            for name in sorted(os.listdir(path)):
                self._record(path / name, whole=True)

    def undo(self) -> None:
        """Restore every recorded path as it was (through the one writer)."""
        priors = sorted(self.priors.values(), key=lambda p: len(p.path.parts))
        with Writer(self.roots) as writer:
            for prior in reversed(priors):  # a recorded directory is rebuilt whole
                if not _same_linked_inode(writer, prior):
                    writer.remove(prior.path)
            linked: dict[tuple[int, int], Path] = {}
            for prior in priors:
                _restore(writer, prior, linked)
            for prior in reversed(priors):
                if prior.kind == "dir":
                    writer.set_meta(prior.path, _meta(prior))

    def close(self) -> None:
        shutil.rmtree(self.backup_dir, ignore_errors=True)  # our own backups, not the workspace


def _restore(writer: Writer, prior: Prior, linked: dict[tuple[int, int], Path]) -> None:
    path = prior.path
    if prior.kind is None:
        return
    if prior.kind == "dir":
        try:
            there = stat.S_ISDIR(writer.lstat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            there = False
        if not there:
            writer.mkdir(path, 0o700)
        return
    if _same_linked_inode(writer, prior):  # written in place: restore in place
        assert prior.backup is not None
        writer.write_over(path, fill_from(prior.backup))
        writer.set_meta(path, _meta(prior))
        return
    if prior.kind not in ("file", "symlink", "fifo"):
        return
    if prior.kind == "file" and prior.inode not in linked:
        linked[prior.inode] = path
        writer.place(path, lambda folder, tmp: _make(writer, prior, folder, tmp, None),
                     prefix=".swebash-undo-")
        return
    partner = linked.get(prior.inode) if prior.kind == "file" else None
    writer.place(path, lambda folder, tmp: _make(writer, prior, folder, tmp, partner),
                 prefix=".swebash-undo-")


def _make(writer: Writer, prior: Prior, folder: Folder, tmp: str, partner: Path | None) -> None:
    """``prior``'s object under the temporary name ``tmp`` in ``folder``."""
    if partner is not None:  # another name of a file restored already
        with writer.at(partner) as (first, name):
            first.link(name, folder, tmp)
    elif prior.kind == "file":
        assert prior.backup is not None
        fd = folder.create(tmp)
        try:
            fill_from(prior.backup)(fd)
            apply_meta(fd, _meta(prior))
        finally:
            os.close(fd)
    elif prior.kind == "symlink":
        folder.symlink(prior.target or "", tmp)
        folder.set_meta(tmp, _meta(prior), symlink=True)
    else:
        folder.mkfifo(tmp)
        folder.set_meta(tmp, _meta(prior))


def _same_linked_inode(writer: Writer, prior: Prior) -> bool:
    """A multiply linked file still the same inode (the apply wrote it in place)."""
    if prior.kind != "file" or prior.nlink < 2:
        return False
    try:
        st = writer.lstat(prior.path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == prior.inode


def _meta(prior: Prior) -> Meta:
    own = os.geteuid() == 0 and prior.uid >= 0
    return Meta(mode=prior.mode, uid=prior.uid if own else -1, gid=prior.gid if own else -1,
                xattrs=prior.xattrs)
