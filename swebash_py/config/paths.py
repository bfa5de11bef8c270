"""Where our files live: the config file, the data directory and a project's
``.swebash/`` folder (contract)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = ".swebash"  # a project's own settings, commands and hooks


def config_path() -> Path:
    """``$SWEBASH_CONFIG``, else ``<user config dir>/swebash/config.toml``."""
    if explicit := os.environ.get("SWEBASH_CONFIG"):
        return Path(explicit).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("swebash", appauthor=False)) / "config.toml"


def user_config_dir() -> Path:
    """``<user config dir>/swebash``: the user's custom commands and AGENTS.md live
    there (README, contract), also when ``$SWEBASH_CONFIG`` names a file elsewhere.

    On Linux, platformdirs' own rule (``$XDG_CONFIG_HOME``, else ``~/.config``)
    without importing it: every run looks here, and platformdirs pulls in tempfile."""
    import sys

    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CONFIG_HOME", "").strip() or "~/.config"
        return Path(base).expanduser() / "swebash"
    from platformdirs import user_config_dir as platform_config_dir

    return Path(platform_config_dir("swebash", appauthor=False))


def data_dir() -> Path:
    """``$SWEBASH_HOME``, else ``<user data dir>/swebash``."""
    if explicit := os.environ.get("SWEBASH_HOME"):
        return Path(explicit).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("swebash", appauthor=False))


def private_file(path: Path) -> Path:
    """``path`` (a file of ours holding conversations) readable by its owner only:
    created so when missing; made so when it exists, is ours and others could read
    it (written by 0.1, in a folder left 0755). Failing to create it is the
    caller's to report; failing to tighten it (a read-only disk) is not an error."""
    if not path.exists():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            return path
        except FileExistsError:  # made meanwhile, by another `ai`
            pass
    try:
        found = path.stat()
        if found.st_uid == os.getuid() and found.st_mode & 0o077 and path.is_file():
            path.chmod(found.st_mode & 0o700)
    except OSError:
        pass
    return path


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``.git``."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def project_root(workspace: Path) -> Path | None:
    """The folder whose ``.swebash/`` applies: the workspace itself, else its git
    root, whichever first holds a ``.swebash`` directory."""
    workspace = workspace.resolve()
    for candidate in (workspace, git_root(workspace)):
        if candidate is not None and (candidate / PROJECT_DIR).is_dir():
            return candidate
    return None
