"""The one record every file change goes through, and the seam tools write to.

A ``FileChange`` is one path changed by one tool call in a turn: its content
and permission bits before (``None``: it did not exist) and after (``None``:
deleted). ``write_file`` and ``edit_file`` record one before they write; a
command preview's applied changes record the same, so ``/undo`` and
``/rewind`` have one code path for both.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class FileState:
    """A regular file's bytes and permission bits; ``data=None``: no file."""

    data: bytes | None
    mode: int | None = None

    @classmethod
    def of(cls, path: Path) -> FileState:
        """What is at ``path`` now (anything but a regular file counts as "other")."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return cls(None)
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(f"{path} is not a regular file")
        return cls(path.read_bytes(), stat.S_IMODE(st.st_mode))

    @property
    def exists(self) -> bool:
        return self.data is not None


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


def new_file_mode() -> int:
    """The mode a newly created file gets (0o666 less the umask)."""
    from swebash_py.atomic import default_file_mode

    return default_file_mode()
