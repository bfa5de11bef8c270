"""Custom commands and the user's AGENTS.md come from ``<user config dir>/swebash/``
(README, contract), also when ``$SWEBASH_CONFIG`` names a file in another folder."""

from __future__ import annotations

from pathlib import Path

from swebash_py.config.paths import config_path, user_config_dir
from swebash_py.project.extensions import load_custom_commands, user_dir
from swebash_py.project.loading import ProjectStatus


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
