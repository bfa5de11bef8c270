"""Preview tests run real bwrap and real overlays; they say why when they cannot."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from swebash_py.fs.folder import user_xattrs
from swebash_py.sandbox import overlay
from tests.e2e.conftest import spawn_ai  # noqa: F401  (a fixture for the pty tests)


def _why_not() -> str:
    found = overlay.support()
    return "" if found.ok else found.reason


needs_overlay = pytest.mark.skipif(bool(_why_not()),
                                   reason=f"no overlay previews here: {_why_not()}")


def _digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def snapshot(root: Path) -> dict[str, Any]:
    """Everything ``apply`` must reproduce: names, types, bytes, bits, owners,
    symlink targets, hard-link groups, user xattrs (timestamps excepted)."""
    out: dict[str, Any] = {}
    groups: dict[int, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            entry: dict[str, Any] = {"mode": stat.S_IMODE(st.st_mode), "uid": st.st_uid,
                                     "gid": st.st_gid, "type": stat.S_IFMT(st.st_mode)}
            if stat.S_ISREG(st.st_mode):
                entry["sha"] = _digest(path)
                if st.st_nlink > 1:
                    entry["group"] = groups.setdefault(st.st_ino, rel)
                    entry["nlink"] = st.st_nlink
            elif stat.S_ISLNK(st.st_mode):
                entry["target"] = os.readlink(path)
            if not stat.S_ISLNK(st.st_mode):
                entry["xattrs"] = user_xattrs(path)
            out[rel] = entry
    return out
