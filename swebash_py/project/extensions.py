"""What the user and the project add to a session, built once with it:
AGENTS.md instructions and the MCP servers; and custom slash commands, which
only the REPL offers: it loads them (``load_custom_commands``) as a session starts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swebash_py.config.paths import user_config_dir
from swebash_py.config.project import ProjectStatus
from swebash_py.project.agents_md import Instructions, load_instructions

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings
    from swebash_py.mcpclient.manager import McpManager
    from swebash_py.project.commands import CustomCommand


def user_dir() -> Path:
    """``<user config dir>/swebash``, wherever ``$SWEBASH_CONFIG`` points."""
    return user_config_dir()


@dataclass
class Extensions:
    instructions: Instructions = field(default_factory=Instructions)
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    project: ProjectStatus = field(default_factory=ProjectStatus)
    mcp: McpManager | None = None

    async def close(self) -> None:
        if self.mcp is not None:
            await self.mcp.close()


def load_custom_commands(project: ProjectStatus) -> dict[str, CustomCommand]:
    from swebash_py.project.commands import load_commands

    directories, roots = [user_dir() / "commands"], [user_dir()]
    if project.commands_dir is not None and project.root is not None:
        directories.append(project.commands_dir)
        roots.append(project.root)
    return load_commands(directories, roots)


def build_extensions(settings: Settings, registry: Any, *, tools_enabled: bool,
                     on_notice: Callable[[str], None] = lambda _n: None) -> Extensions:
    """Instructions and an MCP manager (not started) for ``settings``."""
    project = settings.project or ProjectStatus()
    workspace = settings.workspace
    cwd = Path.cwd().resolve()
    here = cwd if cwd == workspace or workspace in cwd.parents else workspace
    ext = Extensions(load_instructions(here, user_dir()), project=project)
    for note in ext.instructions.notes:  # an AGENTS.md the reader refused: one line each
        on_notice(note)
    servers = {n: s for n, s in settings.mcp_servers.items() if s.enabled}
    if tools_enabled and servers:
        from swebash_py.mcpclient.manager import McpManager

        ext.mcp = McpManager(servers, workspace, registry, on_notice)
    return ext
