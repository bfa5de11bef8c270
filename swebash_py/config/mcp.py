"""``[mcp_servers.NAME]``: a stdio server (``command``, ``args``, ``env``,
``cwd``) or a streamable HTTP one (``url``, ``headers``)."""

from __future__ import annotations

import os
import re
from typing import Annotated

import msgspec

from swebash_py.config.table import Table

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
Seconds = Annotated[float, msgspec.Meta(gt=0)]


class McpServerSettings(Table):
    command: str | None = None
    args: list[str] = msgspec.field(default_factory=list)
    env: dict[str, str] = msgspec.field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    enabled: bool = True
    startup_timeout: Seconds = 20.0
    tool_timeout: Seconds = 60.0

    def __post_init__(self) -> None:
        """One transport: a command or an http(s) URL (a ``ValueError`` otherwise)."""
        if bool(self.command) == bool(self.url):
            raise ValueError("give either command (a stdio server) or url (streamable HTTP)")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def resolved_env(self) -> dict[str, str]:
        """``env`` with ``${VAR}`` replaced from our own environment."""
        return {key: expand_vars(value) for key, value in self.env.items()}

    def resolved_headers(self) -> dict[str, str]:
        return {key: expand_vars(value) for key, value in self.headers.items()}


def expand_vars(value: str) -> str:
    """``${NAME}`` from the environment (empty when unset); nothing else expands."""
    return _VAR.sub(lambda m: os.environ.get(m.group(1), ""), value)


def check_server_names(servers: dict[str, McpServerSettings]) -> None:
    """A ``ValueError`` for a name that cannot be part of ``mcp__NAME__TOOL``."""
    for name in servers:
        if not SERVER_NAME.match(name) or "__" in name:
            raise ValueError(f"server name {name!r}: use letters, digits, '-' and single '_' "
                             "(at most 32 characters)")
