"""The change set of a preview, read from the overlay's upper directories.

An upper directory holds exactly what the command changed: created and
modified files (copied up whole), symlinks, FIFOs, directories (``opaque``
when they replace what was there: ``user.overlay.opaque=y``), and whiteouts
(character devices 0/0) for what it deleted. A copy-up that changed nothing
(``touch``, an open for writing) is left out, timestamps excepted. Files
sharing an inode in the upper directory are one hard-link group: later members
name the first (``link``). A copied-up file whose real path has other names
(root only: the overlay's inode index keeps those names one inode while the
command runs) is changed ``in_place``: the real inode is written, so every
name sees it, as after a direct run.

As root the overlay also records renamed directories (``redirect``: the real
directory it came from, ``moved_from``); what lies below one is read against
that real directory (``lower``).

Settings are never the sandbox's to write: a change at or under a ``.swebash``
(at any depth), or to our own config file, is never part of the set: it is
dropped and named in ``refused`` (the result says so).

Each change carries ``base``: how the real path looked when the change set
was read (and whether it had already changed since the preview started), so
``apply`` can refuse to overwrite what the user changed meanwhile.
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from swebash_py.config.paths import PROJECT_DIR as SETTINGS
from swebash_py.fs.folder import user_xattrs
from swebash_py.preview import handles
from swebash_py.preview.handles import Handle

Kind = Literal["file", "dir", "symlink", "fifo"]
Action = Literal["create", "modify", "delete"]
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
    nlink: int = 1

    @classmethod
    def of(cls, path: Path) -> Base:
        try:
            return cls.from_stat(os.lstat(path))
        except (FileNotFoundError, NotADirectoryError):
            return cls(None)

    @classmethod
    def from_stat(cls, st: os.stat_result) -> Base:
        """What an ``lstat`` says, as a base to compare against later."""
        return cls(kind_of(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                   st.st_mode, st.st_nlink)


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
    in_place: bool = False  # files: the real inode itself changed (its other names too)
    aliases: tuple[str, ...] = ()  # files: real names (same root) of the inode this is now
    lower: str | None = None  # the real path (relative) ``base`` describes
    moved_from: str | None = None  # dirs: the real directory renamed to this path
    moved_base: Base | None = None  # and how it looked
    stale: bool = False  # the real path changed after the preview started

    @property
    def path(self) -> Path:
        return self.root / self.rel


@dataclass
class ChangeSet:
    """Every change of one preview, in apply order (parents before children)."""

    changes: list[Change] = field(default_factory=list)
    start_ns: int = 0
    refused: list[Path] = field(default_factory=list)  # settings: dropped, never applied

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


def _overlay_xattr(path: str, name: str) -> bytes | None:
    """An overlay bookkeeping xattr, in either namespace (``userxattr`` or trusted)."""
    for space in ("user.overlay.", "trusted.overlay."):
        try:
            return os.getxattr(path, space + name, follow_symlinks=False)
        except OSError:
            continue
    return None


def _opaque(path: str) -> bool:
    return _overlay_xattr(path, "opaque") in (b"y", b"x")


def _whiteout(st: os.stat_result, path: str) -> bool:
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
        return True
    # a zero-size file marked as a whiteout (nested overlays)
    return stat.S_ISREG(st.st_mode) and st.st_size == 0 and \
        _overlay_xattr(path, "whiteout") is not None


class _Reader:
    def __init__(self, root: Path, upper: str, start_ns: int) -> None:
        self.root, self.upper, self.start_ns = root, upper, start_ns
        self.out: list[Change] = []
        self.links: dict[int, str] = {}
        self.linked: list[tuple[str, int]] | None = None
        self.handles: dict[str, Handle | None] = {}

    def names_of(self, origin: bytes) -> tuple[str, ...]:
        """The real names (relative) of the multiply linked file a copy-up came from."""
        wanted = handles.of_origin(origin)
        if wanted is None:
            return ()
        if self.linked is None:  # one walk: every multiply linked file, with its inode
            self.linked = []
            for dirpath, _dirs, files in os.walk(self.root):
                for name in files:
                    full = os.path.join(dirpath, name)
                    with contextlib.suppress(OSError):
                        st = os.lstat(full)
                        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                            self.linked.append((full, st.st_ino))
        likely = [(p, i) for p, i in self.linked if handles.may_hold(wanted, i)]
        found = self._matching(likely, wanted) or self._matching(self.linked, wanted)
        return tuple(sorted(os.path.relpath(p, self.root) for p in found))

    def _matching(self, files: list[tuple[str, int]], wanted: Handle) -> list[str]:
        out = []
        for full, _ino in files:
            if full not in self.handles:
                self.handles[full] = handles.of_path(full)
            if self.handles[full] == wanted:
                out.append(full)
        return out

    def walk(self, rel: str, lower: str | None) -> None:
        """``lower``: the real directory (relative) this upper one merges with
        (None: it replaced the real one, nothing below is real)."""
        here = os.path.join(self.upper, rel) if rel else self.upper
        for name in sorted(os.listdir(here)):
            self.entry(os.path.join(rel, name) if rel else name,
                       None if lower is None else os.path.join(lower, name) if lower else name)

    def entry(self, rel: str, lower: str | None) -> None:
        up = os.path.join(self.upper, rel)
        st = os.lstat(up)
        real = self.root / (lower if lower is not None else rel)
        base = Base(None) if lower is None else Base.of(real)
        stale = base.kind is not None and base.ctime_ns > self.start_ns
        if _whiteout(st, up):
            if base.kind is not None:
                self.out.append(Change(self.root, rel, "delete", None, base, stale=stale,
                                       lower=lower))
            return
        kind = kind_of(st.st_mode)
        common = dict(mode=stat.S_IMODE(st.st_mode), uid=st.st_uid, gid=st.st_gid, base=base,
                      stale=stale, xattrs=user_xattrs(up) if kind != "symlink" else (),
                      lower=lower)
        if kind == "dir":
            self._dir(rel, lower, up, st, real, base, common)
            return
        if kind == "other":
            raise OSError(f"{rel}: a device or socket cannot be previewed")
        link = None
        if kind == "file" and st.st_nlink > 1:
            link = self.links.setdefault(st.st_ino, rel)
            link = None if link == rel else link
        target = os.readlink(up) if kind == "symlink" else None
        content = True
        # an indexed copy-up (it names its origin) of a real file with other
        # names: that inode is what the command changed or moved here, so all
        # its names change with it (the overlay's index kept them one inode)
        aliases: tuple[str, ...] = ()
        origin = _overlay_xattr(up, "origin") if kind == "file" and link is None and \
            st.st_nlink > 1 else None
        if origin is not None:
            aliases = self.names_of(origin)
        in_place = lower is not None and lower in aliases
        if base.kind == kind and link is None and (st.st_nlink == 1 or in_place):
            content = self._content_differs(kind, up, real, st)
            if not content and not self._meta_differs(st, up, real):
                return  # copied up, but nothing changed (timestamps excepted)
        action = "create" if base.kind is None else "modify"
        self.out.append(Change(self.root, rel, action, kind, size=st.st_size,  # type: ignore[arg-type]
                               source=up if kind == "file" else None, target=target,
                               link=link, content=content, in_place=in_place,
                               aliases=aliases, **common))  # type: ignore[arg-type]

    def _dir(self, rel: str, lower: str | None, up: str, st: os.stat_result, real: Path,
             base: Base, common: dict[str, Any]) -> None:
        redirect = _overlay_xattr(up, "redirect")
        if redirect is not None:  # a real directory renamed here (root: redirect_dir=on)
            name = os.fsdecode(redirect)
            source = name.lstrip("/") if name.startswith("/") else \
                os.path.join(os.path.dirname(lower if lower is not None else rel), name)
            self.out.append(Change(self.root, rel, "create" if base.kind is None else "modify",
                                   "dir", replace=base.kind is not None, moved_from=source,
                                   moved_base=Base.of(self.root / source), **common))
            self.walk(rel, source)
            return
        replace = _opaque(up) or (base.kind not in (None, "dir"))
        if base.kind == "dir" and not replace:
            if self._meta_differs(st, up, real):
                self.out.append(Change(self.root, rel, "modify", "dir", **common))
            self.walk(rel, lower)
            return
        action: Action = "create" if base.kind is None else "modify"
        self.out.append(Change(self.root, rel, action, "dir", replace=True, **common))
        self.walk(rel, None)

    def index(self, index_dir: str) -> None:
        """Copied-up files with other names whose every upper name is gone
        (written, then removed or renamed away): their remaining real names
        still show what the command wrote (the overlay's index entry)."""
        try:
            entries = sorted(os.listdir(index_dir))
        except OSError:
            return
        taken = {c.lower or c.rel for c in self.out}
        for name in entries:
            entry = os.path.join(index_dir, name)
            st = os.lstat(entry)
            origin = _overlay_xattr(entry, "origin")
            if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or origin is None:
                continue
            names = self.names_of(origin)
            left = [n for n in names if n not in taken]
            if not left:
                continue
            real = self.root / left[0]
            base = Base.of(real)
            content = self._content_differs("file", entry, real, st)
            if not content and not self._meta_differs(st, entry, real):
                continue
            self.out.append(Change(
                self.root, left[0], "modify", "file", base, stat.S_IMODE(st.st_mode), st.st_uid,
                st.st_gid, st.st_size, source=entry, xattrs=user_xattrs(entry),
                content=content, in_place=True, aliases=names,
                stale=base.kind is not None and base.ctime_ns > self.start_ns))

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


def read_changes(roots: list[tuple[Path, str]], start_ns: int,
                 guarded: tuple[Path, ...] = ()) -> ChangeSet:
    """The change set of ``(real root, upper directory)`` pairs, without the
    changes to settings (``guarded``: our own config file)."""
    out = ChangeSet(start_ns=start_ns)
    for root, upper in roots:
        reader = _Reader(root, upper, start_ns)
        reader.walk("", "")
        reader.index(os.path.join(os.path.dirname(upper), "wk", "index"))
        for change in reader.out:
            if SETTINGS in Path(change.rel).parts or change.path in guarded:
                if not out.refused or not change.path.is_relative_to(out.refused[-1]):
                    out.refused.append(change.path)  # named once, at its top
            else:
                out.changes.append(change)
    return out
