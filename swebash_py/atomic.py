"""Writing one of OUR files atomically (remembered approvals, the model-info
cache, stored images). The user's workspace is never written here: edits,
preview apply, undo and rewind go through the one writer
(``swebash_py.fs.writer``), which follows no symlink on the way;
``tests/architecture/test_one_writer.py`` holds every caller of this to our
own data."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, new_mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same
    directory, fsync, ``os.replace``, then fsync the directory. An existing
    file keeps its mode; a new one gets ``new_mode`` (default: 0o666 less the
    umask, as ``open`` would)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = new_mode if new_mode is not None else default_file_mode()
    import tempfile  # here: importers that write nothing (a one-shot answer) need none

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def backup(path: Path) -> Path | None:
    """Copy ``path`` to ``<name>.bak`` (the previous version, replaced each
    time) before it is rewritten; returns the copy's path."""
    if not path.exists():
        return None
    target = path.with_name(path.name + ".bak")
    write_atomic(target, path.read_bytes(), new_mode=stat.S_IMODE(path.stat().st_mode))
    return target


def default_file_mode() -> int:
    """The mode ``open`` gives a new file: 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
