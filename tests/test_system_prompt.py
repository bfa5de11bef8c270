"""The system prompt's generated facts: the mode it runs in, git, the machine."""

from __future__ import annotations

import datetime
from pathlib import Path

from swebash_py.engine.system_prompt import RunMode, build_system_prompt

DAY = datetime.date(2026, 1, 2)


def test_the_mode_follows_the_settings() -> None:
    text = build_system_prompt(Path("/w"), ["read_file"], today=DAY,
                               mode=RunMode("auto-edit", "workspace-write", True, False, False))
    assert "approval auto-edit" in text and "write only the workspace" in text
    assert "network on" in text and "preview" not in text
    assert "Nobody can answer questions" in text


def test_twin_defaults_say_ask_previews_and_someone_to_ask() -> None:
    text = build_system_prompt(Path("/w"), ["read_file"], today=DAY)
    assert "approval ask" in text and "network off" in text and "as a preview" in text
    assert "The user answers questions" in text and "Nobody" not in text


def test_no_tools_no_guidance_about_them() -> None:
    text = build_system_prompt(Path("/w"), [], today=DAY)
    assert "no tools" in text and "approval" not in text


def test_git_branch_from_head_and_worktree_pointer(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x$(rm)\n")
    (repo / "src").mkdir()
    assert "git branch feature/x??rm?" in build_system_prompt(repo / "src", [], today=DAY)
    linked = tmp_path / "wt"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {repo / '.git'}\n")
    assert "git branch feature/x" in build_system_prompt(linked, [], today=DAY)


def test_twin_outside_a_repository_no_git_line(tmp_path: Path) -> None:
    assert "git branch" not in build_system_prompt(tmp_path, [], today=DAY)
