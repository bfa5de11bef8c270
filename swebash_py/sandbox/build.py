"""A ``SandboxPolicy`` for one command, from the settings and the grant."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from swebash_py.config.paths import PROJECT_DIR, config_path, data_dir, project_root
from swebash_py.sandbox import pathindex
from swebash_py.sandbox.policy import Grant, SandboxPolicy, effective_mode
from swebash_py.sandbox.secrets import home_secrets
from swebash_py.sandbox.settings_guard import snapshot

if TYPE_CHECKING:
    from swebash_py.config.settings import SandboxSettings


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
    """The project ``.swebash/`` of the workspace's git root (outside the walked
    roots when the workspace is a subfolder): read-only like the ones the index
    finds at any depth of the workspace and the writable roots."""
    found = project_root(workspace)
    folders = [workspace, *roots, *([found] if found is not None else [])]
    return list(dict.fromkeys(Path(os.path.realpath(f / PROJECT_DIR)) for f in folders
                              if (f / PROJECT_DIR).is_dir()))


def build_policy(section: SandboxSettings, grant: Grant, workspace: Path) -> SandboxPolicy:
    """The walls for one command (``section`` is ``[sandbox]``): mode from the grant,
    masks from the secrets list (at home, and at any depth of the roots by the
    cached index), every ``.swebash`` read-only and remembered for the sweep."""
    mode = effective_mode(section.mode, grant)
    workspace = Path(os.path.realpath(workspace))
    home = Path(os.path.expanduser("~"))
    hidden = [*home_secrets(home), *own_paths(), *host_sockets()]
    roots = tuple(Path(os.path.realpath(Path(r).expanduser())) for r in section.writable_roots)
    if mode == "off":
        return SandboxPolicy(mode, workspace, roots, section.network, tuple(hidden), (), home)
    found = pathindex.find([workspace, *roots])
    hidden += found.secrets
    settings = [*project_settings(workspace, roots), *found.settings]
    config = config_path()
    return SandboxPolicy(mode, workspace, roots, section.network, tuple(hidden),
                         tuple(dict.fromkeys(settings)), home,
                         settings_seen=snapshot([*found.settings, config]), guarded=(config,))
