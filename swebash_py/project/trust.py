"""Trusted folders: a project's ``.swebash/`` settings count only once the
user trusts that folder.

The answers are kept in the data directory (``trusted_folders.json``: a map
from resolved folder path to ``"trusted"`` or ``"declined"``), so each folder
is asked about once. A folder is trusted exactly: a trusted parent does not
trust the projects below it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from swebash_py.paths import data_dir

FILE_NAME = "trusted_folders.json"
PROJECT_DIR = ".swebash"
Answer = Literal["trusted", "declined"]


def store_path() -> Path:
    return data_dir() / FILE_NAME


def project_root(workspace: Path) -> Path | None:
    """The folder whose ``.swebash/`` applies: the workspace itself, else its git
    root, whichever first holds a ``.swebash`` directory."""
    from swebash_py.project.agents_md import git_root

    workspace = workspace.resolve()
    for candidate in (workspace, git_root(workspace)):
        if candidate is not None and (candidate / PROJECT_DIR).is_dir():
            return candidate
    return None


def answers() -> dict[str, Answer]:
    """Every remembered answer, by folder."""
    try:
        data = json.loads(store_path().read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if v in ("trusted", "declined")}


def answer_for(folder: Path) -> Answer | None:
    return answers().get(str(folder.resolve()))


def is_trusted(folder: Path) -> bool:
    return answer_for(folder) == "trusted"


def remember(folder: Path, answer: Answer) -> None:
    """Store the user's answer about ``folder``."""
    folders = answers()
    folders[str(folder.resolve())] = answer
    _write(folders)


def revoke(folder: str) -> bool:
    """Forget the answer about ``folder`` (as given, or resolved), so it is asked
    again; False when there was none."""
    folders = answers()
    keys = {folder, str(Path(folder).expanduser().resolve())}
    kept = {k: v for k, v in folders.items() if k not in keys}
    if len(kept) == len(folders):
        return False
    _write(kept)
    return True


def _write(folders: dict[str, Answer]) -> None:
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: only an answer to store needs it (~3 ms to import)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".trusted-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(folders, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)
