"""The one reader: every file that enters the model's context goes through here.

``read_file``, ``@path`` mentions, AGENTS.md (the user's and the project's),
custom commands and attached images all read with these functions, so a check
made for one holds for all (issue #27: a second reader is a future hole).

- ``judge`` resolves a path with the tools' path policy (``workspace.resolve``:
  realpath, the one secrets list, our own config and data) and says what, if
  anything, stands in the way: outside the allowed roots, a secrets path, our
  own files. It reads nothing; the caller turns a problem into a question
  (``@path``, as ``read_file`` would ask) or a refusal (AGENTS.md, commands).
- ``open_regular`` opens only a regular file, reached without following any
  symlink (the path was resolved when judged: a symlink that appears since is a
  swap), with ``O_NONBLOCK`` so a FIFO or a device is refused without blocking.
- ``read_capped`` reads at most ``cap`` bytes (one more to know it was cut):
  the cap holds before reading, so ``/dev/zero`` or a 1 GB file cost nothing.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path

from swebash_py.errors import ToolFailed
from swebash_py.fs.workspace import is_inside, resolve

# O_PATH (Linux) needs no read permission on the directories on the way.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW

OUTSIDE = "outside the allowed folders"
SECRET = "a secrets path"
OURS = "swebash's own configuration or data"


class Unreadable(ToolFailed):
    """A file the reader will not or cannot read: ``"{shown}: {reason}"``, one line
    (a ``ToolFailed``, so a tool's error result says it as it stands)."""

    def __init__(self, shown: str, reason: str) -> None:
        super().__init__(f"{shown}: {reason}")
        self.shown, self.reason = shown, reason


@dataclass(frozen=True)
class Access:
    """What the path policy says about reading one path (nothing is read)."""

    raw: str  # as given
    path: Path  # resolved: the file that would be read
    problem: str = ""  # why it may not be read unasked ('' when it may)

    @property
    def allowed(self) -> bool:
        return not self.problem


def judge(raw: str | Path, base: Path, roots: Iterable[Path] = ()) -> Access:
    """Resolve ``raw`` relative to ``base`` and judge it for reading: inside one
    of ``roots`` (``base`` itself when none are given), not a secrets path (by its
    name or its target's), not our own config or data. ``roots`` may include
    "everywhere" as ``Path("/")`` for a file the user named on the command line."""
    text = str(raw)
    try:
        rp = resolve(text, base)
    except ToolFailed as exc:  # a NUL byte, a symlink loop
        return Access(text, Path(os.path.abspath(os.path.join(base, text))), str(exc))
    allowed = [Path(os.path.realpath(r)) for r in (roots or (base,))]
    if rp.protected:
        return Access(text, rp.path, OURS)
    if rp.sensitive:
        return Access(text, rp.path, SECRET)
    if not any(is_inside(rp.path, root) for root in allowed):
        return Access(text, rp.path, OUTSIDE)
    return Access(text, rp.path, "")


def open_regular(path: Path, shown: str) -> BufferedReader:
    """Open the resolved ``path`` for reading: a regular file only (refused
    without blocking otherwise), reached through no symlink at all."""
    try:
        fd = _open_beneath(path, shown)
    except FileNotFoundError as exc:
        raise Unreadable(shown, "no such file") from exc
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.realpath(path) != str(path):
            raise Unreadable(shown, "a symlink appeared on its path since it was checked; "
                                    "not read") from exc
        if exc.errno == errno.EISDIR:
            raise Unreadable(shown, "a directory, not a file") from exc
        raise Unreadable(shown, f"cannot open: {exc.strerror}") from exc
    try:
        check_regular(os.fstat(fd).st_mode, shown)
        os.set_blocking(fd, True)
        return io.BufferedReader(io.FileIO(fd, "rb"), buffer_size=65536)
    except BaseException:
        os.close(fd)
        raise


def _open_beneath(path: Path, shown: str) -> int:
    """``path`` (absolute, resolved) opened one component at a time from ``/``
    with ``O_NOFOLLOW``: a directory swapped for a symlink after the path was
    judged fails here instead of leading somewhere else."""
    if not path.is_absolute():
        raise ValueError(f"{path}: not absolute")
    fd = os.open("/", _DIR_FLAGS)
    try:
        for part in path.parts[1:-1]:
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
        if len(path.parts) == 1:  # "/" itself: a directory
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        st = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
        if not stat.S_ISLNK(st.st_mode):  # a symlink: O_NOFOLLOW says ELOOP below
            check_regular(st.st_mode, shown)  # a socket cannot even be opened
        return os.open(path.name, _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def check_regular(mode: int, shown: str) -> None:
    """Refuse anything but a regular file, naming what it is."""
    if stat.S_ISDIR(mode):
        raise Unreadable(shown, "a directory, not a file")
    if not stat.S_ISREG(mode):
        raise Unreadable(shown, f"not a regular file ({file_kind(mode)}); refusing to read it")


def file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
             (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"),
             (stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symlink"))
    return next((name for test, name in kinds if test(mode)), "special file")


@dataclass(frozen=True)
class Capped:
    """At most ``cap`` bytes of a file, and whether there was more."""

    data: bytes
    cut: bool

    def text(self) -> str:
        # a cut may fall inside a character: drop the partial one, not replace it
        return self.data.decode("utf-8", errors="ignore" if self.cut else "replace")


def read_capped(path: Path, shown: str, cap: int) -> Capped:
    """At most ``cap`` bytes of the regular file at the resolved ``path``: one
    more is read to know whether it was cut, never the rest."""
    with open_regular(path, shown) as f:
        data = f.read(cap + 1)
    return Capped(data[:cap], len(data) > cap)


def read_allowed(access: Access, shown: str, cap: int) -> Capped:
    """``read_capped`` of a judged path; Unreadable when the judgement found a
    problem (the callers that never ask: AGENTS.md, custom commands, ``-i``)."""
    if access.problem:
        raise Unreadable(shown, f"{describe(access)}; not read")
    return read_capped(access.path, shown, cap)


def describe(access: Access) -> str:
    """The problem in words for one line (where the path leads, when that is it)."""
    if access.problem in (OUTSIDE, SECRET, OURS) and str(access.path) != access.raw:
        return f"it leads to {access.path}, {access.problem}"
    return access.problem
