"""Damaged pages are found before anything is written into the database.

``PRAGMA quick_check`` misses damage that leaves each page well formed (an
index entry whose key bytes changed: the index no longer matches its table).
``PRAGMA integrity_check`` finds it but reads everything: on a 100 MB database
0.10 s warm and idle, up to 0.39 s on this loaded machine (quick_check costs
about the same), too slow for every start. So the full check runs when the
file is not the one we last saw sound: ``verify`` compares the file's identity
(device, inode, size and mtime of the database, and of its ``-wal`` when that
holds pages) with the one recorded in a side file (``sessions.db.sound``) when
the last check passed and when the last ``Store`` closed. Our own writes are
recorded at close, so the next start pays a ``stat`` (~0.05 ms); a file
changed by anything else (another program, a crash before close, a restored
copy) is checked in full once. What this cannot see: bytes that rot on the
disk without changing size or mtime; a small file (up to 4 MiB, ~6 ms) also
gets ``quick_check`` on every open for that.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path

from swebash_py.store.faults import DamagedDatabase

QUICK_CHECK_MAX_BYTES = 4 * 1024 * 1024
Identity = list[int]


def identity(path: Path) -> Identity | None:
    """What changes when anyone writes the database; None when it is missing or empty."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if st.st_size == 0:
        return None
    found = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]
    with contextlib.suppress(FileNotFoundError):
        wal = os.stat(f"{path}-wal")
        if wal.st_size:  # an empty one (any open connection's) holds no pages
            found += [wal.st_size, wal.st_mtime_ns]
    return found


def _side(path: Path) -> Path:
    return path.with_name(path.name + ".sound")


def recorded(path: Path) -> Identity | None:
    try:
        value = json.loads(_side(path).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, list) else None


def record(path: Path) -> None:
    """Remember the file as sound as it is now (a full disk: not remembered, so
    the next start checks again)."""
    found = identity(path)
    if found is None:
        return
    tmp = _side(path).with_name(_side(path).name + ".tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(json.dumps(found), encoding="ascii")
        os.replace(tmp, _side(path))


def verify(conn: sqlite3.Connection, path: Path) -> None:
    """``DamagedDatabase`` unless the database at ``path`` is sound."""
    found = identity(path)
    if found is None:
        return
    if found != recorded(path):
        _raise_unless_ok(conn, path, "integrity_check")
        record(path)
    elif found[2] <= QUICK_CHECK_MAX_BYTES:
        _raise_unless_ok(conn, path, "quick_check")


def problems(conn: sqlite3.Connection, check: str = "integrity_check") -> list[str]:
    """What the check reports ([] when sound); ``ai doctor`` uses the full one."""
    rows = [str(r[0]) for r in conn.execute(f"PRAGMA {check}(5)").fetchall()]
    return [] if rows == ["ok"] else rows


def _raise_unless_ok(conn: sqlite3.Connection, path: Path, check: str) -> None:
    found = problems(conn, check)
    if found:
        raise DamagedDatabase(f"the sessions database {path} is damaged ({'; '.join(found)})")
