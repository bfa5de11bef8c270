"""Managed policy: an administrator's file that fixes settings for everyone.

``/etc/swebash/managed.toml``, in the config file's format; ``$SWEBASH_MANAGED_CONFIG``
is read only where that file does not exist (a user's environment must not be
able to switch an administrator's file off: ``SWEBASH_MANAGED_CONFIG=/dev/null``
would). Every key it sets wins over flags, the environment, REPL commands,
the user's and the project's files; its ``[permissions] deny`` rules are added
to everyone else's (deny rules always win), never replaced.

This module only reads and describes the policy; ``settings_gate`` is the one
place that applies it, wherever a setting changes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path("/etc/swebash/managed.toml")
ENV = "SWEBASH_MANAGED_CONFIG"
ADDED_NOT_FIXED = (("permissions", "deny"),)  # lists the policy adds to, not replaces


def managed_path() -> Path:
    """The policy file that applies: the system one whenever it exists (even if
    ``$SWEBASH_MANAGED_CONFIG`` names another), else the variable's, else the
    system path (which then does not exist: no policy)."""
    if os.path.lexists(DEFAULT_PATH):  # a dangling link is still the admin's: fails closed
        return DEFAULT_PATH
    value = os.environ.get(ENV)
    return Path(value).expanduser() if value else DEFAULT_PATH


@dataclass(frozen=True)
class ManagedPolicy:
    """The keys an administrator fixed (``fixed`` empty: no policy)."""

    path: Path = DEFAULT_PATH
    fixed: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls) -> ManagedPolicy:
        """The policy in force (a ``ConfigError`` naming the file if it is unreadable)."""
        from swebash_py.config.settings import read_config_file

        path = managed_path()
        return cls(path, read_config_file(path))

    def value(self, key: str) -> Any:
        """What the policy fixes ``key`` (dotted) to; None when it does not."""
        table: Any = self.fixed
        for part in key.split("."):
            if not isinstance(table, dict) or part not in table:
                return None
            table = table[part]
        return table

    def fixes(self, key: str) -> bool:
        """True when ``key`` is fixed (a list it only adds to is not)."""
        return (self.value(key) is not None
                and tuple(key.split(".")) not in ADDED_NOT_FIXED)

    @property
    def source(self) -> str:
        return f"managed policy {self.path}"

    def overlay(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` (everything merged) with the managed keys laid over it."""
        return _overlay(data, self.fixed, ())


def _overlay(base: dict[str, Any], fixed: dict[str, Any], where: tuple[str, ...]
             ) -> dict[str, Any]:
    out = dict(base)
    for key, value in fixed.items():
        here = (*where, key)
        if here in ADDED_NOT_FIXED and isinstance(value, list):
            current = out.get(key)
            mine: list[Any] = current if isinstance(current, list) else []
            out[key] = [*mine, *(rule for rule in value if rule not in mine)]
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _overlay(out[key], value, here)
        else:
            out[key] = value
    return out
