"""Rules remembered from "always" answers, per workspace, in the data directory.

One JSON file, ``<data dir>/approvals.json``: ``{"/resolved/workspace": [rule, ...]}``,
written atomically (a temporary file then ``os.replace``) under a lock file.
Only the user's own answers reach ``add``; nothing a tool returns calls it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from pathlib import Path

from swebash_py.approvals.rules import parse_rule
from swebash_py.atomic import write_atomic
from swebash_py.paths import data_dir

FILE_NAME = "approvals.json"


def store_path() -> Path:
    return data_dir() / FILE_NAME


def _key(workspace: Path) -> str:
    return str(Path(workspace).expanduser().resolve())


def all() -> dict[str, list[str]]:  # shadows the builtin on purpose: remembered.all()
    """Every workspace's remembered rules (an unreadable file counts as empty)."""
    try:
        data = json.loads(store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(r) for r in v] for k, v in data.items() if isinstance(v, list)}


def load(workspace: Path) -> list[str]:
    """The rules remembered for this workspace, valid ones only."""
    rules = []
    for rule in all().get(_key(workspace), []):
        try:
            parse_rule(rule)
        except ValueError:
            continue
        rules.append(rule)
    return rules


def add(workspace: Path, rule: str) -> None:
    """Remember ``rule`` (validated first: a ``ValueError`` if it does not parse)."""
    parse_rule(rule)
    with _locked():
        data = all()
        rules = data.setdefault(_key(workspace), [])
        if rule not in rules:
            rules.append(rule)
            _write(data)


def remove(workspace: Path, rule: str) -> bool:
    """Forget ``rule`` for this workspace; False if it was not remembered."""
    with _locked():
        data = all()
        rules = data.get(_key(workspace), [])
        if rule not in rules:
            return False
        rules.remove(rule)
        if not rules:
            del data[_key(workspace)]
        _write(data)
        return True


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write(data: dict[str, list[str]]) -> None:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    write_atomic(store_path(), text.encode("utf-8"), new_mode=0o600)
