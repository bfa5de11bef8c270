"""``.env`` files at any depth, found before every sandboxed command without
re-reading the whole tree each time.

The index remembers, per root, every directory it walked: its signature
(device, inode, mtime, ctime, size, link count), the ``.env`` files in it and
its subdirectories. A later walk still visits every directory, but only with
``lstat``; it re-lists a directory (``scandir``) when its signature changed,
which any entry created, removed or renamed in it does (a new directory shows
in its parent, a rename into place in the target directory), or when its
timestamps are too recent to be trusted: timestamps are coarse (a clock tick,
up to seconds on some filesystems), so a change in the same tick as the last
listing could leave them equal. A directory is trusted only once it was listed
``margin`` after its last change (git's "racily clean" rule); ``utime`` cannot
fake one, since it moves ctime. Directories that are gone are forgotten.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from swebash_py.sandbox.secrets import is_env_file

MARGIN_NS = 2_000_000_000  # coarse timestamps, and modest clock skew on network filesystems


@dataclass(frozen=True)
class _Listing:
    signature: tuple[int, ...]
    listed_ns: int  # our clock when the listing began
    env_files: tuple[str, ...]
    subdirs: tuple[str, ...]


def signature(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_nlink)


class EnvFileIndex:
    """``find(root)``: the ``.env`` files under ``root`` (``.git`` skipped,
    symlinks not followed), as complete as a full walk."""

    def __init__(self, margin_ns: int = MARGIN_NS,
                 clock: Callable[[], int] = time.time_ns) -> None:
        self.margin_ns, self.clock = margin_ns, clock
        self._roots: dict[str, dict[str, _Listing]] = {}
        self._lock = threading.Lock()
        self.listings = 0  # directories re-read (for tests and the bench)

    def find(self, root: Path) -> list[Path]:
        top = str(root)
        with self._lock:
            before = self._roots.get(top, {})
            after: dict[str, _Listing] = {}
            found: list[Path] = []
            stack = [top]
            while stack:
                path = stack.pop()
                listing = self._visit(path, path == top, before.get(path))
                if listing is None:
                    continue
                after[path] = listing
                found += map(Path, listing.env_files)
                stack += listing.subdirs
            self._roots[top] = after
            return found

    def _visit(self, path: str, is_root: bool, old: _Listing | None) -> _Listing | None:
        try:
            st = os.stat(path) if is_root else os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None
        sig = signature(st)
        if old is not None and old.signature == sig and self._settled(st, old.listed_ns):
            return old
        return self._list(path, sig)

    def _settled(self, st: os.stat_result, listed_ns: int) -> bool:
        """Whether the directory's last change lies safely before its listing."""
        return max(st.st_mtime_ns, st.st_ctime_ns) < listed_ns - self.margin_ns

    def _list(self, path: str, sig: tuple[int, ...]) -> _Listing:
        self.listings += 1
        listed_ns = self.clock()
        env, subdirs = [], []
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    if is_env_file(entry.name):
                        env.append(entry.path)
                    elif entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                        subdirs.append(entry.path)
        except OSError:
            pass  # unreadable: nothing found; a chmod moves its ctime, so it is re-read
        return _Listing(sig, listed_ns, tuple(env), tuple(subdirs))


INDEX = EnvFileIndex()


def env_files(root: Path) -> list[Path]:
    """The process-wide index's answer for ``root``."""
    return INDEX.find(root)
