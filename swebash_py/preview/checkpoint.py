"""Applied previews recorded in the turn's checkpoints (the store /undo reads).

``StoreJournal`` is the ``Journal`` an apply tells about each path before it
touches it; it keeps the path's whole prior state (every path of a tree about
to be removed, too): kind, bytes, bits, owner, symlink target, user xattrs,
and for a file with other names one of them (its ``partner``). ``commit``
records one ``FileChange`` per path whose state changed, through the same
``Checkpointer`` write_file and edit_file use, so ``/undo``, ``/rewind`` and
``ai undo`` take a command's changes back on the one code path. What that
store cannot hold is left out and said: files over ``MAX_RECORDED`` bytes,
devices and sockets.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from swebash_py.checkpoints.model import Checkpointer, FileChange, FileState

MAX_RECORDED = 50 * 1024 * 1024
PARTNER_SCAN_MAX = 200_000  # entries looked at to find a file's other name
STAGED = ".swebash-apply-"


class StoreJournal:
    def __init__(self, checkpoints: Checkpointer, roots: list[Path] | None = None) -> None:
        self.checkpoints = checkpoints
        self.roots = roots or []
        self.before_states: dict[Path, FileState] = {}
        self.untracked: list[Path] = []
        self.names: dict[str, list[Path]] | None = None  # inode: its names, before the apply

    def before(self, path: Path) -> None:
        for found in _paths_at(path):
            if found not in self.before_states:
                state = self._state(found)
                if state is not None and state.inode is not None:
                    state = replace(state, partner=self._partner(found, state.inode))
                if state is not None:
                    self.before_states[found] = state

    def _partner(self, path: Path, inode: str) -> str | None:
        """Another name of ``path``'s inode, as the tree was before the apply
        touched any linked file (one bounded scan of the roots)."""
        if self.names is None:
            self.names = {}
            for key, found in _scan(self.roots):
                self.names.setdefault(key, []).append(found)
        others = [p for p in self.names.get(inode, []) if p != path]
        return str(others[0]) if others else None

    def commit(self, tool: str) -> None:
        """Record what each touched path became (after the apply)."""
        for path, before in self.before_states.items():
            after = self._state(path)
            if after is not None and before != after:
                self.checkpoints.record(FileChange(str(path), tool, before, after))
        self.before_states.clear()

    def note(self) -> str | None:
        if not self.untracked:
            return None
        names = ", ".join(str(p) for p in self.untracked[:5])
        more = f" and {len(self.untracked) - 5} more" if len(self.untracked) > 5 else ""
        return f"[not covered by /undo (files over 50 MB, devices, sockets): {names}{more}]"

    def _state(self, path: Path) -> FileState | None:
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return FileState(None)
        if (stat.S_ISREG(st.st_mode) and st.st_size > MAX_RECORDED) or \
                not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)
                     or stat.S_ISLNK(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            if path not in self.untracked:
                self.untracked.append(path)
            return None
        return FileState.full_of(path, st)


def _paths_at(path: Path) -> Iterator[Path]:
    """``path``, and everything beneath it when it is a directory."""
    yield path
    if os.path.isdir(path) and not os.path.islink(path):
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                yield Path(dirpath) / name


def _scan(roots: list[Path]) -> Iterator[tuple[str, Path]]:
    """Every multiply linked file under the roots, with its inode (bounded)."""
    seen = 0
    for root in roots:
        for dirpath, _dirs, filenames in os.walk(root):
            for name in filenames:
                if name.startswith(STAGED):
                    continue  # apply's own temporary names
                seen += 1
                if seen > PARTNER_SCAN_MAX:
                    return
                full = os.path.join(dirpath, name)
                try:
                    st = os.lstat(full)
                except OSError:
                    continue
                if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
                    yield f"{st.st_dev}:{st.st_ino}", Path(full)
