"""The settings as every command of ``ai`` loads them: ``config``'s merge, with the
checks of the values whose meaning a higher layer owns (the permission rules:
``approvals.settings_checks``). ``config`` imports nothing above it, so the rules
come to it from here, the front end, rather than from ``config`` reaching up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from swebash_py.approvals.settings_checks import RULE_SETTINGS
from swebash_py.config import settings as config_settings
from swebash_py.config.settings import Settings


def load_settings(flags: dict[str, Any] | None = None, *,
                  project: Callable[[Path], Any] | None = None) -> Settings:
    """``config.settings.load_settings`` with the rules checked (a bad one is one
    ``config error`` line naming its file, key and rule)."""
    return config_settings.load_settings(flags, project=project, checks=RULE_SETTINGS)
