"""A file of a gibibyte whose every line matches ``return`` (made in ~1 s)."""

from __future__ import annotations

import os
from pathlib import Path

GIB = 1024 ** 3


def gib_of_matches(path: Path) -> Path:
    """Write ``return n\\n`` lines up to 1 GiB at ``path`` (the caller deletes it)."""
    block = b"    return value\n" * (1024 * 1024 // 17)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        written = 0
        while written < GIB:
            written += os.write(fd, block)
    finally:
        os.close(fd)
    return path
