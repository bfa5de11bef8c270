"""The change set of a preview, read from the overlay's upper directories.

An upper directory holds exactly what the command changed: created and
modified files (copied up whole), symlinks, FIFOs, directories (``opaque``
when they replace what was there: ``user.overlay.opaque=y``), and whiteouts
(character devices 0/0) for what it deleted. A copy-up that changed nothing
(``touch``, an open for writing) is left out, timestamps excepted. Files
sharing an inode in the upper directory are one hard-link group: later members
name the first (``link``).

Each change carries ``base``: how the real path looked when the change set
was read (and whether it had already changed since the preview started), so
``apply`` can refuse to overwrite what the user changed meanwhile.
"""

from __future__ import annotations

import filecmp
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Kind = Literal["file", "dir", "symlink", "fifo"]
Action = Literal["create", "modify", "delete"]
OVERLAY_XATTRS = "user.overlay."
PAST = {"create": "created", "modify": "modified", "delete": "deleted"}


@dataclass(frozen=True)
class Base:
    """The real path's identity when the change set was read (``kind=None``: absent)."""

    kind: str | None
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    ino: int = 0
    mode: int = 0

    @classmethod
    def of(cls, path: Path) -> Base:
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return cls(None)
        return cls(kind_of(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                   st.st_mode)


@dataclass(frozen=True)
class Change:
    """One path a command created, modified or deleted under one root."""

    root: Path
    rel: str
    action: Action
    kind: Kind | None  # what is there afterwards (None: deleted)
    base: Base
    mode: int = 0  # permission bits afterwards
    uid: int = -1
    gid: int = -1
    size: int = 0
    source: str | None = None  # the upper copy (files)
    target: str | None = None  # symlinks
    link: str | None = None  # a hard link to this earlier path (same root)
    xattrs: tuple[tuple[str, bytes], ...] = ()
    replace: bool = False  # a directory that replaces whatever was there
    content: bool = True  # files: the bytes changed (False: mode/owner/xattrs only)
    stale: bool = False  # the real path changed after the preview started

    @property
    def path(self) -> Path:
        return self.root / self.rel


@dataclass
class ChangeSet:
    """Every change of one preview, in apply order (parents before children)."""

    changes: list[Change] = field(default_factory=list)
    start_ns: int = 0

    def __bool__(self) -> bool:
        return bool(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def counts(self) -> dict[str, int]:
        out = {"created": 0, "modified": 0, "deleted": 0}
        for change in self.changes:
            out[PAST[change.action]] += 1
        return out


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISFIFO(mode):
        return "fifo"
    return "other"


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


def _opaque(path: str) -> bool:
    try:
        return os.getxattr(path, "user.overlay.opaque", follow_symlinks=False) in (b"y", b"x")
    except OSError:
        return False


def _whiteout(st: os.stat_result, path: str) -> bool:
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
        return True
    try:  # a zero-size file marked as a whiteout (nested overlays)
        return stat.S_ISREG(st.st_mode) and st.st_size == 0 and \
            os.getxattr(path, "user.overlay.whiteout", follow_symlinks=False) is not None
    except OSError:
        return False


class _Reader:
    def __init__(self, root: Path, upper: str, start_ns: int) -> None:
        self.root, self.upper, self.start_ns = root, upper, start_ns
        self.out: list[Change] = []
        self.links: dict[int, str] = {}

    def walk(self, rel: str, fresh: bool) -> None:
        """``fresh``: this directory replaced the real one (nothing below is real)."""
        here = os.path.join(self.upper, rel) if rel else self.upper
        for name in sorted(os.listdir(here)):
            self.entry(os.path.join(rel, name) if rel else name, fresh)

    def entry(self, rel: str, fresh: bool) -> None:
        up = os.path.join(self.upper, rel)
        st = os.lstat(up)
        real = self.root / rel
        base = Base(None) if fresh else Base.of(real)
        stale = base.kind is not None and base.ctime_ns > self.start_ns
        if _whiteout(st, up):
            if base.kind is not None:
                self.out.append(Change(self.root, rel, "delete", None, base, stale=stale))
            return
        kind = kind_of(st.st_mode)
        common = dict(mode=stat.S_IMODE(st.st_mode), uid=st.st_uid, gid=st.st_gid, base=base,
                      stale=stale, xattrs=user_xattrs(up) if kind != "symlink" else ())
        if kind == "dir":
            replace = _opaque(up) or (base.kind not in (None, "dir"))
            if base.kind == "dir" and not replace:
                if self._meta_differs(st, up, real):
                    self.out.append(Change(self.root, rel, "modify", "dir", **common))  # type: ignore[arg-type]
                self.walk(rel, False)
                return
            action = "create" if base.kind is None else "modify"
            self.out.append(Change(self.root, rel, action, "dir", replace=True, **common))  # type: ignore[arg-type]
            self.walk(rel, True)
            return
        if kind == "other":
            raise OSError(f"{rel}: a device or socket cannot be previewed")
        link = None
        if kind == "file" and st.st_nlink > 1:
            link = self.links.setdefault(st.st_ino, rel)
            link = None if link == rel else link
        target = os.readlink(up) if kind == "symlink" else None
        content = True
        if base.kind == kind and link is None and st.st_nlink == 1:
            content = self._content_differs(kind, up, real, st)
            if not content and not self._meta_differs(st, up, real):
                return  # copied up, but nothing changed (timestamps excepted)
        action = "create" if base.kind is None else "modify"
        self.out.append(Change(self.root, rel, action, kind, size=st.st_size,  # type: ignore[arg-type]
                               source=up if kind == "file" else None, target=target,
                               link=link, content=content, **common))  # type: ignore[arg-type]

    @staticmethod
    def _content_differs(kind: str, up: str, real: Path, st: os.stat_result) -> bool:
        if kind == "symlink":
            return os.readlink(up) != os.readlink(real)
        if kind == "fifo":
            return False
        try:
            return os.lstat(real).st_size != st.st_size or not filecmp.cmp(up, real, shallow=False)
        except OSError:
            return True

    @staticmethod
    def _meta_differs(st: os.stat_result, up: str, real: Path) -> bool:
        try:
            now = os.lstat(real)
        except OSError:
            return True
        if stat.S_ISLNK(st.st_mode):
            return (now.st_uid, now.st_gid) != (st.st_uid, st.st_gid)
        return (stat.S_IMODE(now.st_mode), now.st_uid, now.st_gid) != \
            (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) or \
            user_xattrs(real) != user_xattrs(up)


def read_changes(roots: list[tuple[Path, str]], start_ns: int) -> ChangeSet:
    """The change set of ``(real root, upper directory)`` pairs."""
    out = ChangeSet(start_ns=start_ns)
    for root, upper in roots:
        reader = _Reader(root, upper, start_ns)
        reader.walk("", False)
        out.changes += reader.out
    return out
