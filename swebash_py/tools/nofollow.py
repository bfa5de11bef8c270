"""Moved: the one writer (``swebash_py.fs.writer``) owns writing beneath a
path without following a symlink. Kept as a name for old imports."""

from __future__ import annotations

from swebash_py.fs.writer import ParentMoved, PathMoved, make_dirs_beneath, write_beneath

__all__ = ["ParentMoved", "PathMoved", "make_dirs_beneath", "write_beneath"]
