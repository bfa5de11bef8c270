"""A project's own settings: ``.swebash/config.toml``, and whether they count
(``ProjectStatus``, decided by ``project.loading`` before the settings are built).

Only these keys may appear there: ``[mcp_servers.NAME]``, ``[permissions]``
(``allow``, ``deny``) and ``[hooks]`` (``pre_tool``, ``post_tool``). They are
merged into the user's settings only when the folder is trusted: lists are
appended to the user's; an MCP server the user configured under the same
name keeps the user's definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swebash_py.config.paths import PROJECT_DIR
from swebash_py.errors import ConfigError

CONFIG_NAME = "config.toml"
_ALLOWED = {"mcp_servers": None, "permissions": {"allow", "deny"},
            "hooks": {"pre_tool", "post_tool"}}


@dataclass
class ProjectStatus:
    """The project folder (if it has a ``.swebash/``), whether it is trusted, why."""

    root: Path | None = None
    trusted: bool = False
    reason: str = ""
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def commands_dir(self) -> Path | None:
        if self.root is None or not self.trusted:
            return None
        return self.root / PROJECT_DIR / "commands"


def config_file(root: Path) -> Path:
    return root / PROJECT_DIR / CONFIG_NAME


def read_project_config(root: Path) -> dict[str, Any]:
    """The project's settings, checked against the keys a project may set."""
    from swebash_py.config.settings import read_config_file

    path = config_file(root)
    data = read_config_file(path)
    for key, value in data.items():
        if key not in _ALLOWED:
            raise ConfigError(f"config error: {path}: key '{key}': not allowed in a project's "
                              f"settings (allowed: {', '.join(_ALLOWED)})")
        subkeys = _ALLOWED[key]
        if subkeys is not None and isinstance(value, dict):
            for sub in value:
                if sub not in subkeys:
                    raise ConfigError(f"config error: {path}: key '{key}.{sub}': not allowed "
                                      f"in a project's settings")
    return data


def merge_project(user: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    """``user`` with ``project``'s servers, rules and hooks added."""
    merged = dict(user)
    servers = dict(project.get("mcp_servers") or {})
    servers.update(user.get("mcp_servers") or {})
    if servers:
        merged["mcp_servers"] = servers
    for section, keys in (("permissions", ("allow", "deny")), ("hooks", ("pre_tool", "post_tool"))):
        extra = project.get(section) or {}
        if not extra:
            continue
        base = dict(user.get(section) or {})
        for key in keys:
            if key in extra:
                base[key] = [*(base.get(key) or []), *extra[key]]
        merged[section] = base
    return merged
