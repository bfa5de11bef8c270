"""Where SQLite and the file system meet the store: their errors become one
``StorageError`` line that says what to do; a damaged database is moved aside.

* full disk: say so and what was kept;
* read-only, missing or unusable data directory (``SWEBASH_HOME`` a file,
  ``/proc/...``): the path, and that ``SWEBASH_HOME`` can point elsewhere;
* damaged database: moved to ``sessions.db.corrupt-<time>`` (never over an
  existing file), a new one started, the user told where the old one is;
* a database from a newer version: refused (see ``schema.check_version``).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from swebash_py.config.paths import data_dir
from swebash_py.errors import StorageError

ELSEWHERE = "or set SWEBASH_HOME to a writable directory"
NEARLY_FULL_BYTES = 64 * 1024
_READ_ONLY = ("readonly database", "unable to open database", "read-only file system",
              "permission denied", "disk i/o error")
_DAMAGED = ("file is not a database", "malformed", "database corrupt")


class DamagedDatabase(StorageError):
    """The database file is not a sound SQLite database (moved aside on open)."""


class DiskFull(StorageError):
    """No space left: nothing can be written (reading still works)."""


def is_damage(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.DatabaseError) and any(
        word in str(exc).lower() for word in _DAMAGED)


def describe(exc: BaseException, path: Path, kept: str = "") -> StorageError:
    """``exc`` (sqlite3 or OS) met while using ``path``, as one actionable line."""
    if isinstance(exc, StorageError):
        return exc
    text = str(exc).lower()
    code = exc.errno if isinstance(exc, OSError) else None
    where = path.parent
    if is_damage(exc):
        return DamagedDatabase(f"the sessions database {path} is damaged ({exc}); see "
                               "`ai doctor`")
    if code == errno.ENOSPC or "database or disk is full" in text or _no_space(where):
        tail = f"; {kept}" if kept else ""
        return DiskFull(f"the disk is full: cannot write {path}{tail}; free some space "
                        f"({ELSEWHERE})")
    if code in (errno.ENOTDIR, errno.EEXIST) or (where.exists() and not where.is_dir()):
        return StorageError(f"the data directory {where} is not a directory; remove or "
                            f"rename that file, {ELSEWHERE}")
    if code in (errno.EACCES, errno.EROFS, errno.EPERM, errno.ENOENT) or any(
            word in text for word in _READ_ONLY):
        reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        return StorageError(f"cannot write the data directory {where} ({reason}); make it "
                            f"writable, {ELSEWHERE}")
    if "locked" in text or "busy" in text:
        return StorageError(f"the sessions database {path} is busy (another ai holds it "
                            "too long); try again")
    return StorageError(f"cannot use the sessions database {path}: {exc} ({ELSEWHERE})")


def _no_space(directory: Path) -> bool:
    """Whether the file system of ``directory`` is (all but) full: SQLite reports
    a full disk as a "disk I/O error" when its shared-memory file cannot grow."""
    try:
        stats = os.statvfs(directory)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < NEARLY_FULL_BYTES


@contextmanager
def converted(path: Path, kept: str = "") -> Iterator[None]:
    """Turn the sqlite3 / OS errors raised inside into a ``StorageError``."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        raise describe(exc, path, kept) from exc


def move_aside(path: Path) -> Path:
    """Rename a damaged database (and its -wal / -shm files) out of the way;
    returns the new name. An existing file is never replaced."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    with converted(path):
        os.link(path, target)  # fails rather than overwrite; then drop the old name
        os.unlink(path)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.replace(side, target.with_name(target.name + suffix))
    return target


def health_check(path: Path) -> list[str]:
    """Problems with the database at ``path`` (``PRAGMA integrity_check``: a
    doctor may take its time), for ``ai doctor``: an empty list when it is sound
    or does not exist yet."""
    from swebash_py.store.schema import SCHEMA_VERSION
    from swebash_py.store.soundness import problems

    if not path.exists():
        return []
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return [f"{path}: cannot open: {exc}"]
    try:
        rows = problems(conn)
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as exc:
        return [f"{path}: {exc}"]
    finally:
        conn.close()
    found_problems = [f"{path}: {row}" for row in rows]
    if found > SCHEMA_VERSION:
        found_problems.append(f"{path}: schema v{found} is newer than this version's "
                              f"v{SCHEMA_VERSION}: upgrade swebash-py")
    return found_problems


def ensure_data_dir(directory: Path | None = None) -> Path:
    """The data directory, created if needed; a ``StorageError`` line when it
    cannot be (a file in the way, read-only, ``/proc/...``)."""
    directory = directory or data_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)  # conversations are private
        if directory.is_dir():
            return directory
        raise NotADirectoryError(20, "not a directory", str(directory))
    except OSError as exc:
        raise describe(exc, directory / "sessions.db") from exc
