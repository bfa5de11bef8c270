"""Writing a file exactly where its resolved path says, never through a symlink.

The file tools resolve a path (``workspace.resolve``), judge it, and later
write it. Between the two a directory on the way may be swapped for a symlink
to somewhere else. ``write_beneath`` walks the resolved path from ``/`` one
component at a time with ``O_NOFOLLOW`` (creating missing directories as it
goes) and writes the temporary file and renames it relative to the directory
it holds open, so the write lands in the directory that was judged or fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

# O_PATH (Linux) needs no read permission on the directories on the way.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class PathMoved(OSError):
    """A directory on the way is (now) a symlink or not a directory."""


def _open_dir(name: str, parent: int | None) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise PathMoved(exc.errno, f"{name} is a symlink or not a directory (it changed "
                                       "since the path was checked)") from exc
        raise


def _walk(directory: Path) -> int:
    """An open descriptor of ``directory``, reached without following symlinks."""
    fd = os.open("/", _DIR_FLAGS)
    try:
        for part in directory.parts[1:]:
            try:
                nxt = _open_dir(part, fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                nxt = _open_dir(part, fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_dirs_beneath(directory: Path) -> None:
    """Create ``directory``'s missing folders (absolute, resolved), never through a symlink."""
    os.close(_walk(directory))


def write_beneath(path: Path, data: bytes, new_mode: int) -> None:
    """Atomically replace ``path`` (absolute, resolved) with ``data``; an existing
    regular file keeps its mode, a new one gets ``new_mode``."""
    if not path.is_absolute():
        raise ValueError(f"{path}: not absolute")
    dfd = _walk(path.parent)
    try:
        try:
            st = os.stat(path.name, dir_fd=dfd, follow_symlinks=False)
            mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else new_mode
        except FileNotFoundError:
            mode = new_mode
        tmp, fd = _create_temp(dfd, path.name)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fchmod(f.fileno(), mode)
                os.fsync(f.fileno())
            os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)


def _create_temp(dfd: int, name: str) -> tuple[str, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return tmp, os.open(tmp, flags, 0o600, dir_fd=dfd)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name")
