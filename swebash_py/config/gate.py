"""The one gate every setting change goes through; the managed policy is applied here.

A setting changes in two places: when the settings are merged at start-up
(defaults < user file < trusted project file < environment < flags) and when a
REPL command changes one later (``/model``, ``/approval``, ``/sandbox``). Both
come through ``SettingsGate``:

* ``merge`` lays the managed policy over the merged data; a flag or an
  environment variable that conflicts with a fixed key is ignored with a
  one-line notice; a file's setting of a fixed key is ignored silently (the
  administrator's value replaces it, so a bad user value is not an error).
* ``change`` is how a command changes a loaded setting: refused with one line
  when the policy fixes the key to something else, else checked like the file
  (``Table.change``) and set.

Values whose meaning a higher layer owns (the permission rules: the approvals
layer's syntax) are checked by the ``checks`` that layer hands in through the
front end (``cli.settings``): ``check`` runs them on the loaded settings,
``change`` on a new value. config imports nothing above it.

Nothing else compares a value with the managed policy: a second check is a
second door (issue #27: ``/approval`` was checked, ``/sandbox`` was not).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from swebash_py.config.managed import ManagedPolicy
from swebash_py.errors import ConfigError

FLAG_KEYS = {"model": "model", "api_base": "api_base", "approval": "approval",
             "sandbox_mode": "sandbox.mode"}  # Invocation.setting_flags() name → key
FLAG_NAMES = {"model": "--model", "api_base": "--api-base", "approval": "--approval",
              "sandbox_mode": "--sandbox"}
ENV_KEYS = {"SWEBASH_MODEL": "model", "SWEBASH_API_BASE": "api_base",
            "SWEBASH_APPROVAL": "approval", "SWEBASH_STORE_URL": "store.url"}

Notice = Callable[[str], None]
Check = Callable[[Any], object]  # raises ValueError saying what is wrong with a value


class SettingsGate:
    """The managed ``policy`` applied to every change; refusals go to ``notice``;
    ``checks`` (dotted key → check) are a higher layer's checks of some values."""

    def __init__(self, policy: ManagedPolicy, notice: Notice,
                 checks: Mapping[str, Check] | None = None) -> None:
        self.policy = policy
        self._notice = notice
        self._checks = dict(checks or {})

    def fixed_by(self, key: str) -> str:
        """What fixes ``key`` (dotted) so no one can change it ("" when nothing does)."""
        return self.policy.source if self.policy.fixes(key) else ""

    # -- start-up ---------------------------------------------------------------

    def merge(self, data: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
        """``data`` (files, environment and flags merged) with the policy applied."""
        if not self.policy.fixed:
            return data
        noticed: set[str] = set()
        for name, value in flags.items():
            key = FLAG_KEYS.get(name, name)
            if value is not None and self._conflicts(key, value):
                flag = FLAG_NAMES.get(name, f"--{name.replace('_', '-')}")
                self._notice(self.refusal(f"{flag} {value}", key))
                noticed.add(key)
        for variable, key in ENV_KEYS.items():
            value = os.environ.get(variable)
            if value and key not in noticed and self._conflicts(key, value) and not (
                    flags.get(_flag_of(key)) is not None):  # a flag replaced it anyway
                self._notice(self.refusal(f"${variable}={value}", key))
        return self.policy.overlay(data)

    def check(self, settings: Any, source_of: Callable[[str], str]) -> None:
        """The checks passed in, on the loaded ``settings``; the first problem is one
        ``ConfigError`` naming where the value came from (``source_of(key)``), the key
        and the problem. An empty value has nothing to check (most runs have no
        rules: the checking layer is not even called)."""
        for key, check in self._checks.items():
            value = _value_at(settings, key)
            if not value:
                continue
            try:
                check(value)
            except ValueError as exc:
                raise ConfigError(f"config error: {source_of(key)}: key '{key}': {exc}") from None

    # -- later changes ----------------------------------------------------------

    def change(self, settings: Any, key: str, value: Any, asked_as: str = "") -> str | None:
        """Set ``key`` (dotted) of the loaded ``settings`` to ``value``; the one-line
        refusal instead when the policy fixes it to something else (``asked_as``:
        how the user asked, for that line). A value the settings or a check passed
        in reject raises ``msgspec.ValidationError`` (nothing is set)."""
        if self._conflicts(key, value):
            return self.refusal(asked_as or f"{key} {value}", key)
        if (check := self._checks.get(key)) is not None and value:
            try:
                check(value)
            except ValueError as exc:
                import msgspec

                raise msgspec.ValidationError(str(exc)) from None
        *tables, name = key.split(".")
        table = settings
        for part in tables:
            table = getattr(table, part)
        table.change(**{name: value})
        return None

    def refusal(self, what: str, key: str) -> str:
        return (f"{what} ignored: {key} is fixed to {self.policy.value(key)!r} by the "
                f"{self.policy.source}")

    def _conflicts(self, key: str, value: Any) -> bool:
        return self.policy.fixes(key) and self.policy.value(key) != value


def _value_at(settings: Any, key: str) -> Any:
    for part in key.split("."):
        settings = getattr(settings, part)
    return settings


def _flag_of(key: str) -> str:
    return next((name for name, k in FLAG_KEYS.items() if k == key), "")
