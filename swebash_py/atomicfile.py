"""Writing our small files (caches, remembered approvals) all or nothing.

The text goes to a temporary file beside the target, is flushed to disk,
then renamed over it; on any failure (a full disk, say) the temporary file
is removed, so a failed write neither leaves a partial file nor eats the
space the sessions database needs.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``; the old content stays if this fails."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def backup(path: Path) -> Path | None:
    """Copy ``path`` to ``<name>.bak`` (the previous version, replaced each
    time) before it is rewritten; returns the copy's path."""
    if not path.exists():
        return None
    target = path.with_name(path.name + ".bak")
    write_atomic(target, path.read_text(encoding="utf-8", errors="surrogateescape"))
    return target
