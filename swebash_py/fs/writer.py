"""The one writer of the workspace: edits, preview apply, undo and rewind.

Every change to a user's tree goes through a ``Writer``. It holds a directory
descriptor per root (the workspace, ``writable_roots``; ``/`` for a path under
none of them) and reaches a path's parent by opening one component at a time
relative to the last, with ``O_NOFOLLOW``: a symlink where a folder was is
never followed, it raises ``ParentMoved`` -- the one conflict type apply
shows and asks about again, and undo reports as its refusal. The
operation itself then runs relative to that held folder (``Folder``), so it
lands in the folder that was walked or fails; the final name is never
followed either (created with ``O_EXCL``/``O_NOFOLLOW``, renamed over,
metadata set through an ``O_PATH`` descriptor of that very inode).

A root itself is opened as given (following symlinks in it is the user's own
choice of workspace); only what lies beneath it is walked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from swebash_py.fs.folder import (
    DIR_FLAGS,
    O_PATH,
    Folder,
    Meta,
    ParentMoved,
    PathMoved,
    apply_meta,
    fill_bytes,
    fill_from,
    parent_moved,
)

__all__ = ["Folder", "Meta", "ParentMoved", "PathMoved", "Writer", "apply_meta", "fill_bytes",
           "fill_from", "make_dirs_beneath", "write_beneath"]


class Writer:
    """Paths beneath ``roots`` (absolute), each reached by a descriptor walk
    from the deepest root that holds it (``/`` for the rest). Paths are split
    as strings: apply walks thousands of them, pathlib would double its cost."""

    def __init__(self, roots: Iterable[str | Path] = ()) -> None:
        found = {os.path.abspath(r) for r in roots}
        self.roots = sorted(((r, _parts(r)) for r in found), key=lambda r: -len(r[1]))
        self._fds: dict[str, int] = {}

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _root_of(self, parts: list[str]) -> tuple[int, list[str]]:
        """The held root above ``parts`` and the parts beneath it."""
        for root, held in self.roots:
            if parts[:len(held)] == held:
                return self._root_fd(root), parts[len(held):]
        return self._root_fd("/"), parts

    def _root_fd(self, root: str) -> int:
        if root not in self._fds:  # the root itself as given: the user chose it
            self._fds[root] = os.open(root, O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        return self._fds[root]

    def _walk(self, parts: list[str], create: bool) -> int:
        """A new descriptor of the folder ``parts`` names, no symlink followed."""
        root, below = self._root_of(parts)
        fd = root  # the held root: never closed here
        try:
            for part in below:
                nxt = _open_dir(part, fd, create)
                if fd != root:
                    os.close(fd)
                fd = nxt
        except BaseException:
            if fd != root:
                os.close(fd)
            raise
        return fd if fd != root else os.dup(root)

    @contextlib.contextmanager
    def folder(self, directory: str | Path, *, create: bool = False) -> Iterator[Folder]:
        """``directory`` held open, reached without following a symlink
        (``create``: missing folders are made on the way, umask applies)."""
        fd = self._walk(_parts(directory), create)
        try:
            yield Folder(fd)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def at(self, path: str | Path, *, create: bool = False) -> Iterator[tuple[Folder, str]]:
        """``path``'s parent held open, and its last name."""
        parts = _parts(path)
        if not parts:
            raise ValueError("/ has no parent to write it in")
        fd = self._walk(parts[:-1], create)
        try:
            yield Folder(fd), parts[-1]
        finally:
            os.close(fd)

    # ------------------------------------------------- one operation, one walk

    def lstat(self, path: Path) -> os.stat_result:
        """``path``'s own status; a missing folder on the way: FileNotFoundError."""
        with self.at(path) as (d, name):
            return d.lstat(name)

    def exists(self, path: Path) -> bool:
        try:
            self.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    def makedirs(self, directory: Path) -> None:
        with self.folder(directory, create=True):
            pass

    def mkdir(self, path: Path, mode: int = 0o700) -> None:
        with self.at(path) as (d, name):
            d.mkdir(name, mode)

    def remove(self, path: Path) -> None:
        """Whatever is at ``path`` (a folder with its tree); nothing there: nothing."""
        try:
            with self.at(path) as (d, name):
                d.remove(name)
        except (FileNotFoundError, NotADirectoryError):
            return

    def unlink(self, path: Path) -> None:
        with self.at(path) as (d, name):
            d.unlink(name)

    def rmdir(self, path: Path) -> None:
        with self.at(path) as (d, name):
            d.rmdir(name)

    def rename(self, src: Path, dst: Path) -> None:
        with self.at(src) as (a, old), self.at(dst) as (b, new):
            a.rename(old, b, new)

    def link(self, src: Path, dst: Path) -> None:
        with self.at(src) as (a, old), self.at(dst) as (b, new):
            a.link(old, b, new)

    def set_meta(self, path: Path, meta: Meta, *, symlink: bool = False) -> None:
        with self.at(path) as (d, name):
            d.set_meta(name, meta, symlink=symlink)

    def write_over(self, path: Path, fill: Callable[[int], None]) -> None:
        """Rewrite an existing file in place (same inode: its other names see it)."""
        with self.at(path) as (d, name):
            fd = d.open_file(name, os.O_WRONLY)
            try:
                fill(fd)
                os.ftruncate(fd, os.lseek(fd, 0, os.SEEK_CUR))
            finally:
                os.close(fd)

    def place(self, path: Path, make: Callable[[Folder, str], None], *,
              replace_dir: bool = False, prefix: str = ".swebash-write-") -> None:
        """Put a new object at ``path`` atomically: ``make`` creates it under a
        temporary name in the same held folder, which is renamed over ``path``
        (``replace_dir``: a folder there is removed first)."""
        with self.at(path) as (d, name):
            tmp = d.temp_name(prefix)
            try:
                make(d, tmp)
                if replace_dir and d.kind(name) == stat.S_IFDIR:
                    d.remove(name)
                os.rename(tmp, name, src_dir_fd=d.fd, dst_dir_fd=d.fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    d.unlink(tmp)
                raise

    def write_file(self, path: Path, fill: Callable[[int], None], meta: Meta, *,
                   keep_mode: bool = False, sync: bool = False,
                   prefix: str = ".swebash-write-") -> None:
        """A regular file at ``path`` replaced atomically by what ``fill``
        writes (``keep_mode``: an existing regular file's bits win over
        ``meta.mode``; ``sync``: fsync the file and the folder)."""
        def make(d: Folder, tmp: str) -> None:
            wanted = meta
            if keep_mode:
                with contextlib.suppress(FileNotFoundError):
                    st = d.lstat(os.path.basename(str(path)))
                    if stat.S_ISREG(st.st_mode):
                        wanted = Meta(stat.S_IMODE(st.st_mode), meta.uid, meta.gid,
                                      meta.xattrs, meta.fresh)
            fd = d.create(tmp)
            try:
                fill(fd)
                apply_meta(fd, wanted)
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)

        self.place(path, make, prefix=prefix)
        if sync:
            with contextlib.suppress(OSError), self.folder(path.parent) as d:
                os.fsync(d.fd)


def _parts(path: str | Path) -> list[str]:
    """An absolute path's names ("." dropped; ".." refused: it is never walked)."""
    text = os.fspath(path)
    if not text.startswith("/"):
        raise ValueError(f"{text}: not absolute")
    parts = [p for p in text.split("/") if p and p != "."]
    if ".." in parts:
        raise ValueError(f"{text}: '..' is not walked")
    return parts


def _open_dir(name: str, parent: int, create: bool) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=parent)
        return _open_dir(name, parent, False)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_symlink(name, parent):
            raise parent_moved(name, exc) from exc
        raise  # a plain file on the way: NotADirectoryError, nothing beneath it


def _is_symlink(name: str, parent: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return True  # gone again meanwhile: still not something to follow


# Edits' entry points (``write_file``/``edit_file``): absolute, resolved paths.

def make_dirs_beneath(directory: Path, roots: Iterable[Path] = ()) -> None:
    """Create ``directory``'s missing folders, never through a symlink."""
    with Writer(roots) as writer:
        writer.makedirs(directory)


def write_beneath(path: Path, data: bytes, new_mode: int, roots: Iterable[Path] = ()) -> None:
    """Atomically replace ``path`` with ``data``: an existing regular file keeps
    its mode, a new one gets ``new_mode``; missing folders are made; fsynced."""
    if not path.is_absolute():
        raise ValueError(f"{path}: not absolute")
    with Writer(roots) as writer:
        writer.makedirs(path.parent)
        writer.write_file(path, fill_bytes(data), Meta(mode=new_mode), keep_mode=True,
                          sync=True, prefix=f".{path.name}.")


def remove_if_same(root: Path, rel: Path, ident: tuple[int, int, int, str]) -> bool:
    """Remove ``root/rel`` (no symlink followed on the way), only if it is still the
    entry that was judged: ``ident`` is its (device, inode, file type, symlink
    target), as the sandbox's settings guard took it."""
    try:
        with Writer([root]) as writer, writer.at(root / rel) as (folder, name):
            st = folder.lstat(name)
            target = (os.readlink(name, dir_fd=folder.fd) if stat.S_ISLNK(st.st_mode)
                      else "")
            if (st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode), target) != ident:
                return False  # changed since it was judged: judged again next time
            folder.remove(name)
    except OSError:
        return False
    return True
