"""Trusted folders: a project's ``.swebash/`` settings count only once the
user trusts that folder.

The answers are kept in the data directory (``trusted_folders.json``: a map
from resolved folder path to ``{"answer": "trusted" | "declined", "fingerprint":
...}``), so each folder is asked about once. A folder is trusted exactly: a
trusted parent does not trust the projects below it. Trust binds to what the
settings held when it was given (``fingerprint``): ``changes`` says what is
different now, and then it is asked again (an answer stored before trust
bound to content, a bare ``"trusted"``, matches nothing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from swebash_py.config.paths import data_dir

if TYPE_CHECKING:
    from swebash_py.project.fingerprint import Fingerprint

FILE_NAME = "trusted_folders.json"
Answer = Literal["trusted", "declined"]


def store_path() -> Path:
    return data_dir() / FILE_NAME


def _records() -> dict[str, dict[str, Any]]:
    """Every stored record, by folder (an old bare answer as a record without a
    fingerprint)."""
    try:
        data = json.loads(store_path().read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    if not isinstance(data, dict):
        return {}
    records: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        record = {"answer": value} if isinstance(value, str) else value
        if isinstance(record, dict) and record.get("answer") in ("trusted", "declined"):
            records[str(key)] = record
    return records


def answers() -> dict[str, Answer]:
    """Every remembered answer, by folder."""
    return {k: v["answer"] for k, v in _records().items()}


def answer_for(folder: Path) -> Answer | None:
    return answers().get(str(folder.resolve()))


def is_trusted(folder: Path) -> bool:
    return answer_for(folder) == "trusted"


def changes(folder: Path, now: Fingerprint | None = None) -> list[str]:
    """What differs in ``folder``'s settings from what they held when it was
    trusted ([] when nothing does, or when it is not trusted)."""
    record = _records().get(str(folder.resolve()))
    if record is None or record["answer"] != "trusted":
        return []
    from swebash_py.project import fingerprint

    before = fingerprint.Fingerprint.from_data(record.get("fingerprint"))
    now = now if now is not None else fingerprint.take(folder, lines=False)
    if before is not None and before.digest == now.digest:
        return []
    described = fingerprint.Fingerprint(now.files, fingerprint.describe_contents(folder)
                                        if now.files else [])
    return fingerprint.differences(before, described) or ["(the settings changed)"]


def remember(folder: Path, answer: Answer, seen: Fingerprint | None = None) -> None:
    """Store the user's answer about ``folder``, bound to ``seen`` (what the
    question showed; None: what the folder holds now)."""
    from swebash_py.project import fingerprint

    seen = seen if seen is not None else fingerprint.take(folder, lines=False)
    seen = fingerprint.Fingerprint(seen.files, fingerprint.describe_contents(folder)
                                   if seen.files else [])  # what it says, for a later diff
    folders = _records()
    folders[str(folder.resolve())] = {"answer": answer, "fingerprint": seen.to_data()}
    _write(folders)


def revoke(folder: str) -> bool:
    """Forget the answer about ``folder`` (as given, or resolved), so it is asked
    again; False when there was none."""
    folders = _records()
    keys = {folder, str(Path(folder).expanduser().resolve())}
    kept = {k: v for k, v in folders.items() if k not in keys}
    if len(kept) == len(folders):
        return False
    _write(kept)
    return True


def _write(folders: dict[str, dict[str, Any]]) -> None:
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: only an answer to store needs it (~3 ms to import)

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".trusted-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(folders, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)
