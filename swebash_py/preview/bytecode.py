"""Whether a ``.pyc`` a preview created is the workspace's own source, compiled.

A new file under ``__pycache__/`` is ignored and not executable, yet the next
unsandboxed ``import`` runs it: the importer trusts a ``.pyc`` whose header
matches its source (magic, then the source's mtime and size, or its hash), and
a command can write a crafted one with a matching header. So a ``.pyc`` applies
without a question only when it is, byte for byte, what this interpreter's
importer writes for the workspace's own source of the same name: the header it
would write, then that source compiled and marshalled. Anything else (another
Python's tag or magic, a source the preview itself wrote, a legacy ``x.pyc``
beside its source, a file too large to check, any read or compile failure) is
not, and the preview asks.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import stat
import sys
from pathlib import Path

from swebash_py.fs.reader import Unreadable, read_capped

BYTECODE_SUFFIXES = (".pyc", ".pyo")
_CAP = 8 * 1024 * 1024  # larger sources or bytecode are not compared: they ask
_CHECKED_HASH, _UNCHECKED_HASH = 0b11, 0b01  # PEP 552 flags of a hash-based .pyc


def is_bytecode(rel: str) -> bool:
    return rel.endswith(BYTECODE_SUFFIXES)


def own_bytecode(rel: str, upper: str | None, workspace: Path) -> bool:
    """Whether the new file ``rel`` (its bytes in the preview's ``upper`` copy) is
    exactly the compilation of ``workspace``'s own source for it."""
    if upper is None or not rel.endswith(".pyc"):
        return False
    if os.path.basename(rel).split(".")[1:2] != [sys.implementation.cache_tag]:
        return False  # another interpreter's: we cannot compile as it does
    try:
        source = Path(importlib.util.source_from_cache(str(workspace / rel)))
        st = os.stat(source, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            return False
        found = _read_upper(upper)
        code = read_capped(source, str(source), _CAP)  # the user's file: the one reader
        if found is None or code.cut:
            return False
        header = _header(found, code.data, st)
        if header is None:
            return False
        compiled = compile(code.data, str(source), "exec", dont_inherit=True,
                           optimize=_optimization(rel))
        return found == header + marshal.dumps(compiled)
    except (Unreadable, OSError, ValueError, SyntaxError, RecursionError, MemoryError,
            NotImplementedError):
        return False


def _read_upper(upper: str) -> bytes | None:
    """The new file's bytes in our overlay (reached through the preview's handle,
    a ``/proc/self/fd`` path: not the one reader's, which follows no link), or
    None when it is not a regular file or is larger than we compare."""
    with open(upper, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        data = fh.read(_CAP + 1)
    return data if len(data) <= _CAP else None


def _header(pyc: bytes, source: bytes, st: os.stat_result) -> bytes | None:
    """The 16-byte header the importer would accept and write for ``source``
    (timestamp- or hash-based, as ``pyc`` says it is), or None."""
    if pyc[:4] != importlib.util.MAGIC_NUMBER or len(pyc) < 16:
        return None
    flags = int.from_bytes(pyc[4:8], "little")
    if flags == 0:
        stamp = (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        return pyc[:8] + stamp + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    if flags in (_CHECKED_HASH, _UNCHECKED_HASH):
        return pyc[:8] + importlib.util.source_hash(source)
    return None


def _optimization(rel: str) -> int:
    """``name.TAG.opt-N.pyc`` was compiled with ``-O``/``-OO`` (N = 1 or 2)."""
    parts = os.path.basename(rel).split(".")
    if len(parts) == 4 and parts[2] in ("opt-1", "opt-2"):
        return int(parts[2][-1])
    return 0
