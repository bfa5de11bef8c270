"""What an apply replaced, so it can be undone exactly.

``before(path)`` (called by ``apply`` before it touches a path) records what
is there: absence, a directory (mode, owner, xattrs; its whole tree when it
is about to be removed), a file (streamed into the backup directory: big files
are never loaded), a symlink, a FIFO. ``undo()`` puts every recorded path back:
first whatever is at each recorded path now is removed (a directory is
rebuilt whole from its recorded tree), then the priors are restored parents
first (files by temp + rename, hard links re-linked), then directory modes,
deepest first.
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path

from swebash_py.preview.apply import remove
from swebash_py.preview.changes import kind_of, user_xattrs


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

    def __init__(self, backup_dir: Path) -> None:
        self.backup_dir = backup_dir
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
            shutil.copyfile(path, backup, follow_symlinks=False)
        elif kind == "symlink":
            target = os.readlink(path)
        self.priors[path] = Prior(path, kind, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid,
                                  backup, target, (st.st_dev, st.st_ino), st.st_nlink,
                                  user_xattrs(path) if kind != "symlink" else ())
        if kind == "dir" and whole:
            for name in sorted(os.listdir(path)):
                self._record(path / name, whole=True)

    def undo(self) -> None:
        """Restore every recorded path as it was."""
        priors = sorted(self.priors.values(), key=lambda p: len(p.path.parts))
        for prior in reversed(priors):  # a recorded directory is rebuilt whole
            if not _same_linked_inode(prior):
                remove(prior.path)
        linked: dict[tuple[int, int], Path] = {}
        for prior in priors:
            self._restore(prior, linked)
        for prior in reversed(priors):
            if prior.kind == "dir":
                _meta(prior)

    @staticmethod
    def _restore(prior: Prior, linked: dict[tuple[int, int], Path]) -> None:
        path = prior.path
        if prior.kind is None:
            return
        if prior.kind == "dir":
            if not os.path.isdir(path):
                os.mkdir(path, 0o700)
            return
        if _same_linked_inode(prior):  # written in place: restore in place
            assert prior.backup is not None
            with open(prior.backup, "rb") as src, open(path, "r+b") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
                dst.truncate()
            _meta(prior)
            return
        tmp = path.parent / f".swebash-undo-{uuid.uuid4().hex[:12]}"
        if prior.kind == "file" and prior.inode in linked:
            os.link(linked[prior.inode], tmp)
        elif prior.kind == "file":
            assert prior.backup is not None
            shutil.copyfile(prior.backup, tmp)
            _meta(prior, tmp)
            linked[prior.inode] = path
        elif prior.kind == "symlink":
            os.symlink(prior.target or "", tmp)
            _meta(prior, tmp)
        elif prior.kind == "fifo":
            os.mkfifo(tmp, 0o600)
            _meta(prior, tmp)
        else:
            return
        os.replace(tmp, path)

    def close(self) -> None:
        shutil.rmtree(self.backup_dir, ignore_errors=True)


def _same_linked_inode(prior: Prior) -> bool:
    """A multiply linked file still the same inode (the apply wrote it in place)."""
    if prior.kind != "file" or prior.nlink < 2:
        return False
    try:
        st = os.lstat(prior.path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == prior.inode


def _meta(prior: Prior, at: Path | None = None) -> None:
    path = at or prior.path
    if os.geteuid() == 0 and prior.uid >= 0:
        os.chown(path, prior.uid, prior.gid, follow_symlinks=False)
    if prior.kind == "symlink":
        return
    os.chmod(path, prior.mode)
    wanted = dict(prior.xattrs)
    for name in os.listxattr(path):
        if name.startswith("user.") and name not in wanted:
            os.removexattr(path, name)
    for name, value in wanted.items():
        os.setxattr(path, name, value)
