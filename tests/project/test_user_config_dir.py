"""Custom commands and the user's AGENTS.md come from ``<user config dir>/swebash/``
(README, contract), also when ``$SWEBASH_CONFIG`` names a file in another folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.config.paths import config_path, user_config_dir
from swebash_py.config.project import ProjectStatus
from swebash_py.project.extensions import load_custom_commands, user_dir


def test_the_user_dir_does_not_follow_swebash_config(isolated: Path) -> None:
    assert config_path() == isolated / "config.toml"
    assert user_dir() == user_config_dir() == isolated / "xdg-config" / "swebash"


def test_commands_beside_the_config_file_are_not_read_those_in_the_user_dir_are(
        isolated: Path, tmp_path: Path) -> None:
    beside = isolated / "commands"  # the config file's folder: the old, wrong place
    beside.mkdir()
    (beside / "old.md").write_text("old")
    mine = user_config_dir() / "commands"
    mine.mkdir(parents=True)
    (mine / "mine.md").write_text("mine")
    assert sorted(load_custom_commands(ProjectStatus(tmp_path, trusted=False))) == ["mine"]


def test_linux_reads_platformdirs_rule_without_importing_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import platformdirs

    if not sys.platform.startswith("linux"):
        pytest.skip("the fast path is Linux's")
    assert user_config_dir() == Path(platformdirs.user_config_dir("swebash", appauthor=False))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert user_config_dir() == Path(platformdirs.user_config_dir("swebash", appauthor=False))
