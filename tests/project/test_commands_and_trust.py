"""Custom slash commands, project settings and the trust store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swebash_py.config.paths import project_root
from swebash_py.config.project import merge_project, read_project_config
from swebash_py.errors import ConfigError
from swebash_py.project import trust
from swebash_py.project.commands import load_commands, split_builtin_clashes


def test_commands_expand_arguments_and_read_front_matter(tmp_path: Path) -> None:
    (tmp_path / "review.md").write_text(
        "---\ndescription: Review a file\n---\nReview $1 for $2. All: $ARGUMENTS.$3\n")
    (tmp_path / "plain.md").write_text("# Explain things\nExplain $ARGUMENTS\n")
    (tmp_path / "bad name.md").write_text("ignored")
    commands = load_commands([tmp_path])
    assert sorted(commands) == ["plain", "review"]
    review = commands["review"]
    assert review.description == "Review a file"
    assert review.expand('app.py "thread safety"') == (
        'Review app.py for thread safety. All: app.py "thread safety".')
    assert commands["plain"].description == "Explain things"


def test_later_directories_win_and_builtins_cannot_be_shadowed(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    user.mkdir()
    project.mkdir()
    (user / "fix.md").write_text("user fix")
    (project / "fix.md").write_text("project fix")
    (project / "help.md").write_text("not the real help")
    commands = load_commands([user, project])
    assert commands["fix"].body == "project fix"
    kept, warnings = split_builtin_clashes(commands, {"/help", "/exit"})
    assert "help" not in kept and "fix" in kept
    assert len(warnings) == 1 and "/help is built in" in warnings[0]


def test_trust_is_remembered_listed_and_revoked(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    assert trust.answer_for(folder) is None
    trust.remember(folder, "trusted")
    assert trust.is_trusted(folder)
    assert trust.answers() == {str(folder.resolve()): "trusted"}
    assert not trust.is_trusted(folder / "sub")  # exact folders only
    assert trust.revoke(str(folder))
    assert trust.answer_for(folder) is None
    assert not trust.revoke(str(folder))


def test_project_root_is_the_workspace_or_its_git_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".swebash").mkdir()
    sub = tmp_path / "sub"
    sub.mkdir()
    assert project_root(sub) == tmp_path
    (sub / ".swebash").mkdir()
    assert project_root(sub) == sub


def test_project_config_allows_only_its_keys(tmp_path: Path) -> None:
    (tmp_path / ".swebash").mkdir()
    config = tmp_path / ".swebash" / "config.toml"
    config.write_text('model = "evil/model"\n')
    with pytest.raises(ConfigError, match="'model': not allowed"):
        read_project_config(tmp_path)
    config.write_text('[permissions]\nallow = ["mcp__time__*"]\n'
                      '[mcp_servers.time]\ncommand = "uvx"\n')
    project = read_project_config(tmp_path)
    user = {"permissions": {"allow": ["web_search"]},
            "mcp_servers": {"time": {"command": "mine"}}}
    merged = merge_project(user, project)
    assert merged["permissions"]["allow"] == ["web_search", "mcp__time__*"]
    assert merged["mcp_servers"]["time"] == {"command": "mine"}  # the user's wins


def test_project_commands_count_only_when_trusted(tmp_path: Path, isolated: Path) -> None:
    from swebash_py.config.project import ProjectStatus
    from swebash_py.project.extensions import load_custom_commands

    (tmp_path / ".swebash" / "commands").mkdir(parents=True)
    (tmp_path / ".swebash" / "commands" / "proj.md").write_text("project")
    mine = isolated / "xdg-config" / "swebash" / "commands"  # <user config dir>/swebash
    mine.mkdir(parents=True)
    (mine / "mine.md").write_text("mine")
    assert sorted(load_custom_commands(ProjectStatus(tmp_path, trusted=False))) == ["mine"]
    assert sorted(load_custom_commands(ProjectStatus(tmp_path, trusted=True))) == ["mine",
                                                                                 "proj"]


def test_a_command_linked_to_a_secret_or_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    """The one reader reads commands: a link to a key, or out of the project, is
    dropped with a warning and its text is never kept; the twin next to it loads."""
    project = tmp_path / "proj"
    commands = project / ".swebash" / "commands"
    commands.mkdir(parents=True)
    (tmp_path / "id_rsa").write_text("PRIVATE KEY")
    (tmp_path / "elsewhere.md").write_text("from outside")
    (project / "docs.md").write_text("Review $ARGUMENTS")
    (commands / "leak.md").symlink_to(tmp_path / "id_rsa")
    (commands / "out.md").symlink_to(tmp_path / "elsewhere.md")
    (commands / "review.md").symlink_to("../../docs.md")  # twin: inside the project
    os.mkfifo(commands / "fifo.md")
    loaded = load_commands([commands], [project])
    assert loaded["leak"].body == "" and "secrets path" in loaded["leak"].refused
    kept, warnings = split_builtin_clashes(loaded, {"/help"})
    assert sorted(kept) == ["review"] and kept["review"].body == "Review $ARGUMENTS"
    assert sorted(w.split(" is ignored")[0] for w in warnings) == [
        "custom command /fifo", "custom command /leak", "custom command /out"]
    assert not any("PRIVATE KEY" in w or "from outside" in w for w in warnings)
