"""Managed policy: an administrator's file that fixes settings for everyone.

``/etc/swebash/managed.toml`` (or ``$SWEBASH_MANAGED_CONFIG``), in the config
file's format. Every key it sets wins over flags, the environment, the user's
and the project's files: a conflicting flag is ignored with a one-line notice,
a user setting is ignored silently. Its ``[permissions] deny`` rules are
added to everyone else's (deny rules always win), never replaced.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path("/etc/swebash/managed.toml")
ENV = "SWEBASH_MANAGED_CONFIG"
_FLAG_NAMES = {"model": "--model", "api_base": "--api-base", "approval": "--approval",
               "sandbox_mode": "--sandbox"}
_FLAG_KEYS = {"sandbox_mode": ("sandbox", "mode")}  # flags that set a key inside a table


def managed_path() -> Path:
    value = os.environ.get(ENV)
    return Path(value).expanduser() if value else DEFAULT_PATH


def apply(data: dict[str, Any], flags: dict[str, Any], managed: dict[str, Any], path: Path,
          notice: Callable[[str], None]) -> dict[str, Any]:
    """``data`` (everything merged) with the managed keys laid over it."""
    for key, value in (flags or {}).items():
        where = _FLAG_KEYS.get(key, (key,))
        fixed = _lookup(managed, where)
        if value is not None and fixed is not None and fixed != value:
            flag = _FLAG_NAMES.get(key, f"--{key.replace('_', '-')}")
            notice(f"{flag} {value} ignored: {'.'.join(where)} is fixed to {fixed!r} by the "
                   f"managed policy {path}")
    return _overlay(data, managed, ())


def _lookup(table: dict[str, Any], where: tuple[str, ...]) -> Any:
    for part in where:
        if not isinstance(table, dict) or part not in table:
            return None
        table = table[part]
    return table


def _overlay(base: dict[str, Any], fixed: dict[str, Any], where: tuple[str, ...]
             ) -> dict[str, Any]:
    out = dict(base)
    for key, value in fixed.items():
        here = (*where, key)
        if here == ("permissions", "deny"):
            current = out.get(key)
            mine: list[Any] = current if isinstance(current, list) else []
            out[key] = [*mine, *(rule for rule in value if rule not in mine)]
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _overlay(out[key], value, here)
        else:
            out[key] = value
    return out
