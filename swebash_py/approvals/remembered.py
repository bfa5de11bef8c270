"""Rules remembered from "always" answers, per workspace, in the data directory.

One JSON file, ``<data dir>/approvals.json``: ``{"/resolved/workspace": [rule, ...]}``,
written atomically (a temporary file then ``os.replace``) under a lock file,
the previous version kept as ``approvals.json.bak``. A file that does not
parse (a hand edit with a trailing comma) is never rewritten: its rules are
not used (so more is asked, never less), ``problem()`` says which file and
line, and ``add`` / ``remove`` refuse with that line.
Only the user's own answers reach ``add``; nothing a tool returns calls it.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import json
from collections.abc import Iterator
from pathlib import Path

from swebash_py.config.paths import data_dir
from swebash_py.errors import StorageError

FILE_NAME = "approvals.json"


def store_path() -> Path:
    return data_dir() / FILE_NAME


def _key(workspace: Path) -> str:
    return str(Path(workspace).expanduser().resolve())


def all() -> dict[str, list[str]]:  # shadows the builtin on purpose: remembered.all()
    """Every workspace's remembered rules (a missing or broken file: none)."""
    try:
        return _read()
    except StorageError:
        return {}


def problem() -> str | None:
    """Why the file's rules are not used (which file, which line), if they are not."""
    try:
        _read()
    except StorageError as exc:
        return str(exc)
    return None


def _read() -> dict[str, list[str]]:
    """The file's rules; ``StorageError`` naming the file and line when broken."""
    path = store_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"{path}: cannot read it ({exc}); remembered rules are not "
                           "used until it is fixed") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StorageError(f"{path} line {exc.lineno} column {exc.colno}: {exc.msg}; "
                           "remembered rules are not used until it is fixed") from exc
    if not isinstance(data, dict) or not builtins.all(isinstance(v, list)
                                                      for v in data.values()):
        raise StorageError(f"{path}: expected {{\"/workspace\": [\"rule\", ...]}}; "
                           "remembered rules are not used until it is fixed")
    return {str(k): [str(r) for r in v] for k, v in data.items()}


def load(workspace: Path) -> list[str]:
    """The rules remembered for this workspace, valid ones only."""
    from swebash_py.approvals.rules import parse_rule  # here: start-up reads no rule

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
    from swebash_py.approvals.rules import parse_rule

    parse_rule(rule)
    with _locked():
        data = _read()  # a broken file raises: it is never overwritten
        rules = data.setdefault(_key(workspace), [])
        if rule not in rules:
            rules.append(rule)
            _write(data)


def remove(workspace: Path, rule: str) -> bool:
    """Forget ``rule`` for this workspace; False if it was not remembered."""
    with _locked():
        data = _read()
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
    from swebash_py.atomic import backup, write_atomic  # here: reading writes nothing

    path = store_path()
    backup(path)
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    write_atomic(path, text.encode("utf-8"), new_mode=0o600)
