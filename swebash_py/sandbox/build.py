"""A ``SandboxPolicy`` for one command, from the settings and the grant."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from swebash_py.paths import config_path, data_dir
from swebash_py.project.trust import PROJECT_DIR, project_root
from swebash_py.sandbox.envfiles import env_files
from swebash_py.sandbox.policy import Grant, SandboxPolicy, effective_mode
from swebash_py.sandbox.secrets import home_secrets

if TYPE_CHECKING:
    from swebash_py.config import SandboxSettings


def own_paths() -> list[Path]:
    """Our config (its ``swebash`` directory when it has one) and data directory,
    created empty when missing so that no sandboxed command can create them."""
    config, data = config_path(), data_dir()
    own_dir = config.parent if config.parent.name == "swebash" else None
    for directory in (data, own_dir):
        if directory is not None:
            with contextlib.suppress(OSError):
                directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    paths = [data, own_dir or config]
    return paths


def host_sockets(environ: dict[str, str] | None = None) -> list[Path]:
    """Unix sockets (and their directories) named by our environment: an ssh or gpg
    agent, docker, the user's runtime directory. /run itself is private already."""
    env = environ if environ is not None else dict(os.environ)
    found = []
    for name in ("SSH_AUTH_SOCK", "GPG_AGENT_INFO", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS",
                 "DOCKER_HOST", "WAYLAND_DISPLAY", "PULSE_SERVER"):
        value = env.get(name, "")
        for part in value.replace(";", ":").split(":" if name == "GPG_AGENT_INFO" else ";"):
            path = part.split("path=", 1)[-1].split(",", 1)[0].removeprefix("unix://")
            if path.startswith("/") and os.path.exists(path):
                found.append(Path(path))
    home = Path(os.path.expanduser("~"))
    found += [p for p in (home / ".docker" / "run",) if p.exists()]
    return found


def project_settings(workspace: Path, roots: tuple[Path, ...]) -> list[Path]:
    """Every project ``.swebash/`` a command could write (MCP servers, hooks, allow
    rules, commands of a trusted project): kept read-only, bound onto itself so it
    cannot be renamed or replaced either."""
    found = project_root(workspace)
    folders = [workspace, *roots, *([found] if found is not None else [])]
    return list(dict.fromkeys(Path(os.path.realpath(f / PROJECT_DIR)) for f in folders
                              if (f / PROJECT_DIR).is_dir()))


def build_policy(section: SandboxSettings, grant: Grant, workspace: Path) -> SandboxPolicy:
    """The walls for one command (``section`` is ``[sandbox]``): mode from the grant,
    masks from the secrets list."""
    mode = effective_mode(section.mode, grant)
    workspace = Path(os.path.realpath(workspace))
    home = Path(os.path.expanduser("~"))
    hidden = [*home_secrets(home), *own_paths(), *host_sockets()]
    if mode != "off":
        hidden += env_files(workspace)
        for root in section.writable_roots:
            hidden += env_files(Path(root).expanduser())
    roots = tuple(Path(os.path.realpath(Path(r).expanduser())) for r in section.writable_roots)
    read_only = tuple(project_settings(workspace, roots)) if mode != "off" else ()
    return SandboxPolicy(mode, workspace, roots, section.network, tuple(hidden), read_only,
                         home)
