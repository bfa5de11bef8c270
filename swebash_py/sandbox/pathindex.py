"""Secrets and settings at any depth, found before every sandboxed command
without re-reading the whole tree each time.

One walk answers two questions about a root (the workspace, a writable root):
which entries the file tools treat as secrets (``secrets.is_secret_entry``, the
one list: masked in the sandbox; a secret directory is masked whole and not
entered) and which entries are named ``.swebash`` (project settings: kept
read-only in the sandbox, and ``settings_guard`` removes any the command adds).

The index remembers, per root, every directory it walked: its signature
(device, inode, mtime, ctime, size, link count), the secrets and settings in it
and its subdirectories. A later walk still visits every directory, but only with
``lstat``; it re-lists a directory (``scandir``) when its signature changed,
which any entry created, removed or renamed in it does (a new directory shows
in its parent, a rename into place in the target directory), or when its
timestamps are too recent to be trusted: timestamps are coarse (a clock tick,
up to seconds on some filesystems), so a change in the same tick as the last
listing could leave them equal. A directory is trusted only once it was listed
``margin`` after its last change (git's "racily clean" rule); ``utime`` cannot
fake one, since it moves ctime. Directories that are gone are forgotten.

The process-wide index is kept in our data directory between runs (``persisted``),
so a one-shot's first command does not list a large tree again. A copy loaded
from there is only ever the ``before`` of a walk: each directory in it is trusted
under the same two rules (its signature unchanged, listed safely after its last
change), so one who can write the workspace but not our data directory gains
nothing (any change re-lists); a copy that is unreadable, of another version or
of another root is not used at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from swebash_py.config.paths import PROJECT_DIR as SETTINGS
from swebash_py.sandbox.secrets import is_secret_entry

MARGIN_NS = 2_000_000_000  # coarse timestamps, and modest clock skew on network filesystems
SKIPPED = ".git"  # its config and hooks have their own guards
FORMAT = 1  # of the persisted copy; another one is not read


class _Listing(msgspec.Struct, frozen=True, array_like=True):
    """One directory as last listed; entries by name (the persisted copy stays small)."""

    signature: tuple[int, ...]
    listed_ns: int  # our clock when the listing began
    secrets: tuple[str, ...]
    settings: tuple[str, ...]
    subdirs: tuple[str, ...]


class _Saved(msgspec.Struct, array_like=True):
    """A persisted root: its listings by directory path."""

    format: int
    root: str
    listings: dict[str, _Listing]


@dataclass
class Found:
    """What one walk of one or more roots found."""

    secrets: list[Path] = field(default_factory=list)
    settings: list[Path] = field(default_factory=list)


def signature(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_nlink)


class PathIndex:
    """``find(root)``: the secrets and the ``.swebash`` entries under ``root``
    (``.git`` skipped, symlinks not followed), as complete as a full walk."""

    def __init__(self, margin_ns: int = MARGIN_NS,
                 clock: Callable[[], int] = time.time_ns,
                 persisted: Callable[[], Path] | None = None) -> None:
        self.margin_ns, self.clock = margin_ns, clock
        self.persisted = persisted  # the folder of the copies kept between runs
        self._roots: dict[str, dict[str, _Listing]] = {}
        self._lock = threading.Lock()
        self.listings = 0  # directories re-read (for tests and the bench)

    def find(self, root: Path, into: Found | None = None) -> Found:
        top = str(root)
        found = into if into is not None else Found()
        with self._lock:
            before = self._roots.get(top)
            if before is None:
                before = self._load(top)
            listed_before = self.listings
            after: dict[str, _Listing] = {}
            stack = [top]
            while stack:
                path = stack.pop()
                listing = self._visit(path, path[len(top) + 1:], path == top, before.get(path))
                if listing is None:
                    continue
                after[path] = listing
                prefix = path + os.sep
                if listing.secrets:  # most directories hold neither
                    found.secrets += [Path(prefix + name) for name in listing.secrets]
                if listing.settings:
                    found.settings += [Path(prefix + name) for name in listing.settings]
                stack += [prefix + name for name in listing.subdirs]
            self._roots[top] = after
            if self.listings != listed_before or len(after) != len(before):
                self._save(top, after)
        return found

    def _copy_of(self, top: str) -> Path | None:
        if self.persisted is None:
            return None
        return self.persisted() / (hashlib.sha256(top.encode()).hexdigest()[:32] + ".idx")

    def _load(self, top: str) -> dict[str, _Listing]:
        """The persisted copy for ``top`` (nothing when absent, unreadable, of
        another format or another root): only ever a ``before``, trusted per
        directory by ``_visit``."""
        path = self._copy_of(top)
        if path is None:
            return {}
        try:
            with open(path, "rb") as f:
                saved = msgspec.msgpack.decode(f.read(), type=_Saved)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return {}
        return saved.listings if saved.format == FORMAT and saved.root == top else {}

    def _save(self, top: str, listings: dict[str, _Listing]) -> None:
        path = self._copy_of(top)
        if path is None:
            return
        from swebash_py.atomic import write_atomic

        data = msgspec.msgpack.encode(_Saved(FORMAT, top, listings))
        with contextlib.suppress(OSError):  # a cache: the next run walks again
            write_atomic(path, data, new_mode=0o600)  # names of the user's folders: private

    def _visit(self, path: str, folder: str, is_root: bool,
               old: _Listing | None) -> _Listing | None:
        try:
            st = os.stat(path) if is_root else os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None
        sig = signature(st)
        if old is not None and old.signature == sig and self._settled(st, old.listed_ns):
            return old
        return self._list(path, folder, sig)

    def _settled(self, st: os.stat_result, listed_ns: int) -> bool:
        """Whether the directory's last change lies safely before its listing."""
        return max(st.st_mtime_ns, st.st_ctime_ns) < listed_ns - self.margin_ns

    def _list(self, path: str, folder: str, sig: tuple[int, ...]) -> _Listing:
        self.listings += 1
        listed_ns = self.clock()
        secrets, settings, subdirs = [], [], []
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    name = entry.name
                    if is_secret_entry(folder, name):
                        secrets.append(name)
                        continue  # a secret directory is masked whole
                    if name == SETTINGS:
                        settings.append(name)
                    if name != SKIPPED and entry.is_dir(follow_symlinks=False):
                        subdirs.append(name)
        except OSError:
            pass  # unreadable: nothing found; a chmod moves its ctime, so it is re-read
        return _Listing(sig, listed_ns, tuple(secrets), tuple(settings), tuple(subdirs))


def _persisted() -> Path:
    from swebash_py.config.paths import data_dir

    return data_dir() / "pathindex"


INDEX = PathIndex(persisted=_persisted)


def find(roots: list[Path]) -> Found:
    """The process-wide index's answer for ``roots``."""
    found = Found()
    for root in roots:
        INDEX.find(root, found)
    return found
