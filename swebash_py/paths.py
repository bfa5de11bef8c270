"""Where our files live: the config file and the data directory (contract)."""

from __future__ import annotations

import os
from pathlib import Path


def config_path() -> Path:
    """``$SWEBASH_CONFIG``, else ``<user config dir>/swebash/config.toml``."""
    if explicit := os.environ.get("SWEBASH_CONFIG"):
        return Path(explicit).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("swebash", appauthor=False)) / "config.toml"


def data_dir() -> Path:
    """``$SWEBASH_HOME``, else ``<user data dir>/swebash``."""
    if explicit := os.environ.get("SWEBASH_HOME"):
        return Path(explicit).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("swebash", appauthor=False))
