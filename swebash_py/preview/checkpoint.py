"""Applied previews recorded in the turn's checkpoints (the store /undo reads).

``StoreJournal`` is the ``Journal`` an apply tells about each path before it
touches it; it keeps each regular file's prior state (every file of a tree
about to be removed, too), and ``commit`` records one ``FileChange`` per file
(before, after) through the same ``Checkpointer`` write_file and edit_file
use, so ``/undo``, ``/rewind`` and ``ai undo`` take a command's changes back
on the one code path. What that store cannot hold is left out and said:
files over ``MAX_RECORDED`` bytes, and symlinks, FIFOs and bare directories.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from swebash_py.checkpoints.model import Checkpointer, FileChange, FileState

MAX_RECORDED = 50 * 1024 * 1024


class StoreJournal:
    def __init__(self, checkpoints: Checkpointer) -> None:
        self.checkpoints = checkpoints
        self.before_states: dict[Path, FileState] = {}
        self.untracked: list[Path] = []

    def before(self, path: Path) -> None:
        for file in _files_at(path, self.untracked):
            if file not in self.before_states:
                try:
                    self.before_states[file] = _state(file, self.untracked)
                except IsADirectoryError:
                    continue

    def commit(self, tool: str) -> None:
        """Record what each touched file became (after the apply)."""
        for path, before in self.before_states.items():
            try:
                after = _state(path, self.untracked)
            except IsADirectoryError:
                continue
            if before != after and (before.exists or after.exists):
                self.checkpoints.record(FileChange(str(path), tool, before, after))
        self.before_states.clear()

    def note(self) -> str | None:
        if not self.untracked:
            return None
        names = ", ".join(str(p) for p in self.untracked[:5])
        more = f" and {len(self.untracked) - 5} more" if len(self.untracked) > 5 else ""
        return f"[not covered by /undo (symlinks, directories, files over 50 MB): {names}{more}]"


def _files_at(path: Path, untracked: list[Path]) -> list[Path]:
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return [path]  # absent now: what the apply writes there is recorded
    if stat.S_ISREG(st.st_mode):
        return [path]
    if stat.S_ISDIR(st.st_mode):
        found = []
        for dirpath, _dirs, files in os.walk(path):
            for name in files:
                full = Path(dirpath) / name
                if os.path.isfile(full) and not os.path.islink(full):
                    found.append(full)
                else:
                    untracked.append(full)
        return found
    untracked.append(path)
    return []


def _state(path: Path, untracked: list[Path]) -> FileState:
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return FileState(None)
    if not stat.S_ISREG(st.st_mode):
        untracked.append(path)
        raise IsADirectoryError(str(path))
    if st.st_size > MAX_RECORDED:
        untracked.append(path)
        raise IsADirectoryError(str(path))
    return FileState.of(path)
