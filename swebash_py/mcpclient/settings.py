"""``[mcp_servers.NAME]``: a stdio server (``command``, ``args``, ``env``,
``cwd``) or a streamable HTTP one (``url``, ``headers``)."""

from __future__ import annotations

import os
import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class McpServerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    startup_timeout: float = Field(20.0, gt=0)
    tool_timeout: float = Field(60.0, gt=0)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either command (a stdio server) or url (streamable HTTP)")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return self

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
