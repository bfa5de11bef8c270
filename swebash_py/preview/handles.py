"""File handles: which real file an overlay copy-up came from.

A copy-up records its origin (``*.overlay.origin``: a ``struct ovl_fb``
holding the lower file's handle); ``name_to_handle_at`` gives the same handle
for a real path, so the two can be matched without knowing the filesystem.
"""

from __future__ import annotations

import ctypes
import os

AT_FDCWD = -100
MAX_HANDLE_SZ = 128
OVL_FB_MAGIC = 0xFB
_FB_HEADER = 21  # version, magic, len, flags, type, uuid[16]

Handle = tuple[int, bytes]  # (handle type, handle bytes)


class _FileHandle(ctypes.Structure):
    _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int),
                ("f_handle", ctypes.c_ubyte * MAX_HANDLE_SZ)]


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def of_path(path: str) -> Handle | None:
    """The handle of ``path`` itself (a symlink is not followed); None: none."""
    libc = _libc()
    if libc is None or not hasattr(libc, "name_to_handle_at"):
        return None
    fh = _FileHandle()
    fh.handle_bytes = MAX_HANDLE_SZ
    mount_id = ctypes.c_int()
    if libc.name_to_handle_at(AT_FDCWD, os.fsencode(path), ctypes.byref(fh),
                              ctypes.byref(mount_id), 0) != 0:
        return None
    return fh.handle_type, bytes(fh.f_handle[:fh.handle_bytes])


def of_origin(value: bytes) -> Handle | None:
    """The lower file's handle in an overlay origin xattr (None: not one)."""
    if len(value) <= _FB_HEADER or value[1] != OVL_FB_MAGIC:
        return None
    return value[4], bytes(value[_FB_HEADER:value[2]])


def may_hold(handle: Handle, ino: int) -> bool:
    """A cheap first guess: most filesystems (ext4, xfs, btrfs) put the inode
    number first in a handle (tmpfs does not: the caller then tries them all)."""
    fid = handle[1]
    return fid[:4] == (ino & 0xFFFFFFFF).to_bytes(4, "little") or \
        fid[:8] == ino.to_bytes(8, "little", signed=False)
