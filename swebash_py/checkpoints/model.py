"""The one record every file change goes through, and the seam tools write to.

A ``FileChange`` is one path changed by one tool call in a turn: its content
and permission bits before (``None``: it did not exist) and after (``None``:
deleted). ``write_file`` and ``edit_file`` record one before they write; a
command preview's applied changes record the same, so ``/undo`` and
``/rewind`` have one code path for both.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

Xattrs = tuple[tuple[str, bytes], ...]
KINDS = ("file", "dir", "symlink", "fifo")


@dataclass(frozen=True)
class FileState:
    """What is at one path: ``data=None`` and no ``kind``: nothing.

    ``write_file`` and ``edit_file`` record a regular file's bytes and bits
    only; a command preview's apply records the rest too (``full``): the kind
    (``dir``, ``symlink``, ``fifo``), a symlink's target, the owner, the user
    xattrs and, for a file with other names, its inode and one other name
    (``partner``) so undo can link it back (neither takes part in equality).
    """

    data: bytes | None
    mode: int | None = None
    kind: str | None = None
    target: str | None = None
    uid: int | None = None
    gid: int | None = None
    xattrs: Xattrs = ()
    inode: str | None = field(default=None, compare=False)
    partner: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, path: Path, *, full: bool = False) -> FileState:
        """What is at ``path`` now; not ``full``: anything but a regular file
        raises ``IsADirectoryError`` ("other")."""
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return cls(None)
        if not full:
            if not stat.S_ISREG(st.st_mode):
                raise IsADirectoryError(f"{path} is not a regular file")
            return cls(path.read_bytes(), stat.S_IMODE(st.st_mode))
        return cls.full_of(path, st)

    @classmethod
    def full_of(cls, path: Path, st: os.stat_result) -> FileState:
        kind = _kind(st.st_mode)
        if kind is None:
            raise IsADirectoryError(f"{path} is a device or socket")
        data = path.read_bytes() if kind == "file" else None
        target = os.readlink(path) if kind == "symlink" else None
        inode = f"{st.st_dev}:{st.st_ino}" if kind == "file" and st.st_nlink > 1 else None
        return cls(data, stat.S_IMODE(st.st_mode), kind, target, st.st_uid, st.st_gid,
                   _user_xattrs(path) if kind != "symlink" else (), inode)

    @property
    def exists(self) -> bool:
        return self.what is not None

    @property
    def what(self) -> str | None:
        """The kind, old records included (bytes without a kind: a file)."""
        return self.kind or ("file" if self.data is not None else None)

    @property
    def full(self) -> bool:
        """Recorded with owners, kinds and xattrs (a command's apply)."""
        return self.uid is not None or self.kind is not None

    def meta(self) -> dict[str, Any] | None:
        """What the two ``*_meta`` columns keep (None: a plain file record)."""
        if not self.full:
            return None
        return {"kind": self.kind, "target": self.target, "uid": self.uid, "gid": self.gid,
                "xattrs": [[n, base64.b64encode(v).decode()] for n, v in self.xattrs],
                "inode": self.inode, "partner": self.partner}

    @classmethod
    def from_row(cls, data: bytes | None, mode: int | None, meta: str | None) -> FileState:
        if not meta:
            return cls(data, mode)
        m = json.loads(meta)
        return cls(data, mode, m.get("kind"), m.get("target"), m.get("uid"), m.get("gid"),
                   tuple((n, base64.b64decode(v)) for n, v in m.get("xattrs") or ()),
                   m.get("inode"), m.get("partner"))


def _kind(mode: int) -> str | None:
    for kind, test in (("file", stat.S_ISREG), ("dir", stat.S_ISDIR),
                       ("symlink", stat.S_ISLNK), ("fifo", stat.S_ISFIFO)):
        if test(mode):
            return kind
    return None


def _user_xattrs(path: Path) -> Xattrs:
    from swebash_py.fs.folder import user_xattrs

    return user_xattrs(path)


@dataclass(frozen=True)
class FileChange:
    """One change to one path by one tool call."""

    path: str  # absolute, resolved
    tool: str
    before: FileState
    after: FileState


@dataclass(frozen=True)
class StoredChange:
    """A change as stored, with its id and turn."""

    id: int
    turn_id: int
    turn_seq: int
    change: FileChange
    reverted: bool


class Checkpointer(Protocol):
    """Where tools record a change before they make it."""

    def record(self, change: FileChange) -> int | None:
        """Store ``change`` with the current turn; returns its id (None: not stored)."""
        ...

    def forget(self, change_id: int) -> None:
        """The change was not made after all (the write failed)."""
        ...


def missing_parents(path: Path) -> list[Path]:
    """``path``'s parent directories that do not exist yet, outermost first (the
    writer creates them; they are recorded so that undo removes them)."""
    missing = []
    parent = path.parent
    while not os.path.lexists(parent) and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    return missing[::-1]


def record_folders(checkpoints: Checkpointer, tool: str, folders: list[Path]) -> None:
    """Record folders a tool created (so undo removes them again when empty)."""
    for folder in folders:
        checkpoints.record(FileChange(str(folder), tool, FileState(None),
                                      FileState.of(folder, full=True)))


def new_file_mode() -> int:
    """The mode a newly created file gets (0o666 less the umask)."""
    from swebash_py.atomic import default_file_mode

    return default_file_mode()
