"""What the one writer does inside one held folder (``Folder``), and how.

``Writer`` (``swebash_py.fs.writer``) reaches a folder by its descriptor walk;
every operation here is then relative to that descriptor and never follows a
symlink at the final name either: new objects are created with
``O_EXCL``/``O_NOFOLLOW``, a tree is removed by descriptors, metadata is set
through an ``O_PATH`` descriptor of the very inode. Import these names from
``swebash_py.fs.writer`` (the one door); this module only keeps it short.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# O_PATH (Linux) needs no read permission on the folders on the way.
O_PATH = getattr(os, "O_PATH", os.O_RDONLY)
DIR_FLAGS = O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_PROC_FD = os.path.isdir("/proc/self/fd")  # metadata through an O_PATH descriptor


class ParentMoved(OSError):
    """A folder on the way is now a symlink: never followed. (A plain file on
    the way is ``NotADirectoryError``: nothing can be beneath it.)"""


PathMoved = ParentMoved  # the name edits used before the one writer


@dataclass(frozen=True)
class Meta:
    """What to set on an object: ``uid < 0``: keep the owner; ``mode=None``:
    keep the bits; ``xattrs=None``: leave user xattrs alone; ``fresh``: just
    made by us (no xattrs to remove yet)."""

    mode: int | None = None
    uid: int = -1
    gid: int = -1
    xattrs: tuple[tuple[str, bytes], ...] | None = None
    fresh: bool = False


def parent_moved(name: str, exc: OSError) -> ParentMoved:
    return ParentMoved(exc.errno or errno.ELOOP,
                       f"a folder on the way to {name} is now a symlink; not followed")


class Folder:
    """A held folder descriptor: operations on names directly inside it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(name, dir_fd=self.fd, follow_symlinks=False)

    def kind(self, name: str) -> int | None:
        """The ``S_IFMT`` of ``name`` (None: nothing there)."""
        try:
            return stat.S_IFMT(self.lstat(name).st_mode)
        except FileNotFoundError:
            return None

    def temp_name(self, prefix: str) -> str:
        return f"{prefix}{os.urandom(6).hex()}"

    def create(self, name: str, mode: int = 0o600) -> int:
        """A new regular file (never through a symlink); its writable fd."""
        return os.open(name, _NEW_FLAGS, mode, dir_fd=self.fd)

    def create_temp(self, prefix: str) -> tuple[str, int]:
        for _ in range(100):
            name = self.temp_name(prefix)
            try:
                return name, self.create(name)
            except FileExistsError:
                continue
        raise FileExistsError(errno.EEXIST, "no unused temporary file name")

    def mkdir(self, name: str, mode: int = 0o700) -> None:
        os.mkdir(name, mode, dir_fd=self.fd)

    def symlink(self, target: str, name: str) -> None:
        os.symlink(target, name, dir_fd=self.fd)

    def mkfifo(self, name: str, mode: int = 0o600) -> None:
        os.mkfifo(name, mode, dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        os.unlink(name, dir_fd=self.fd)

    def rmdir(self, name: str) -> None:
        os.rmdir(name, dir_fd=self.fd)

    def rename(self, name: str, to: Folder, new: str) -> None:
        os.rename(name, new, src_dir_fd=self.fd, dst_dir_fd=to.fd)

    def link(self, name: str, to: Folder, new: str) -> None:
        os.link(name, new, src_dir_fd=self.fd, dst_dir_fd=to.fd, follow_symlinks=False)

    def open_file(self, name: str, flags: int) -> int:
        """An existing regular file, never through a symlink."""
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # swapped for a symlink since it was looked at
                raise ParentMoved(errno.ELOOP, f"{name} is now a symlink; not followed") from exc
            raise

    def remove(self, name: str) -> None:
        """Whatever is at ``name``, a folder with its tree (by fds, no symlink followed)."""
        kind = self.kind(name)
        if kind is None:
            return
        if kind != stat.S_IFDIR:
            self.unlink(name)
            return
        if os.geteuid() != 0:  # a read-only folder inside would stop the removal
            self.set_meta(name, Meta(mode=stat.S_IMODE(self.lstat(name).st_mode) | 0o700))
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                     dir_fd=self.fd)
        try:
            inner = Folder(fd)
            for entry in list(os.scandir(fd)):
                inner.remove(entry.name)
        finally:
            os.close(fd)
        self.rmdir(name)

    def set_meta(self, name: str, meta: Meta, *, symlink: bool = False) -> None:
        """Owner, bits and user xattrs of ``name`` itself (a symlink: owner only)."""
        if symlink:
            if meta.uid >= 0:
                os.chown(name, meta.uid, meta.gid, dir_fd=self.fd, follow_symlinks=False)
            return
        fd = os.open(name, (O_PATH if _PROC_FD else os.O_RDONLY) | os.O_NOFOLLOW
                     | os.O_CLOEXEC, dir_fd=self.fd)
        try:
            if stat.S_ISLNK(os.fstat(fd).st_mode):
                raise ParentMoved(errno.ELOOP, f"{name} is now a symlink; not followed")
            apply_meta(f"/proc/self/fd/{fd}" if _PROC_FD else fd, meta)
        finally:
            os.close(fd)


def apply_meta(target: str | int, meta: Meta) -> None:
    """Owner (before the bits: chown drops set-id bits), bits, user xattrs, on
    an open descriptor or its ``/proc/self/fd`` name."""
    if meta.uid >= 0:
        os.chown(target, meta.uid, meta.gid)
    if meta.mode is not None:
        os.chmod(target, meta.mode)
    if meta.xattrs is None or not hasattr(os, "setxattr"):
        return
    wanted = dict(meta.xattrs)
    present = [] if meta.fresh else [n for n in os.listxattr(target) if n.startswith("user.")]
    for name in present:
        if name not in wanted:
            os.removexattr(target, name)
    for name, value in wanted.items():
        os.setxattr(target, name, value)


def fill_from(source: str, size: int = 0) -> Callable[[int], None]:
    """A filler that streams ``source`` into a descriptor (in the kernel where it
    can, ``size`` bytes; then whatever is left, read plainly)."""
    def fill(dst: int) -> None:
        src = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
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
            os.close(src)
    return fill


def fill_bytes(data: bytes) -> Callable[[int], None]:
    def fill(dst: int) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(dst, view):]
    return fill


# overlayfs keeps its own bookkeeping in user.overlay.* xattrs (userxattr mounts)
OVERLAY_XATTRS = "user.overlay."


def user_xattrs(path: str | Path) -> tuple[tuple[str, bytes], ...]:
    """A path's user xattrs, our overlay's own bookkeeping left out."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return ()
    out = []
    for name in sorted(names):
        if name.startswith("user.") and not name.startswith(OVERLAY_XATTRS):
            try:
                out.append((name, os.getxattr(path, name, follow_symlinks=False)))
            except OSError:
                continue
    return tuple(out)
