"""AGENTS.md from the git root down to the working directory, plus the user's."""

from __future__ import annotations

from pathlib import Path

from swebash_py.project.agents_md import CAP_BYTES, load_instructions


def test_nested_files_come_in_order_user_first(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    sub = root / "pkg" / "mod"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("above the git root: never read")
    (root / "AGENTS.md").write_text("root rules")
    (root / "pkg" / "AGENTS.md").write_text("pkg rules")
    (sub / "AGENTS.md").write_text("mod rules")
    user = tmp_path / "config"
    user.mkdir()
    (user / "AGENTS.md").write_text("user rules")
    found = load_instructions(sub, user)
    assert [text for _, text in found.files] == ["user rules", "root rules", "pkg rules",
                                                  "mod rules"]
    prompt = found.prompt_text()
    assert prompt.index("user rules") < prompt.index("root rules") < prompt.index("mod rules")
    assert "never read" not in prompt and not found.cut


def test_without_git_only_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    cwd = tmp_path / "here"
    cwd.mkdir()
    (cwd / "AGENTS.md").write_text("here")
    assert [t for _, t in load_instructions(cwd, tmp_path / "none").files] == ["here"]


def test_the_cap_cuts_with_a_note(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("a" * (CAP_BYTES - 10))
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("b" * 100)
    found = load_instructions(sub, tmp_path / "none")
    assert found.cut
    assert sum(len(t.encode()) for _, t in found.files) == CAP_BYTES
    assert "cut at 32 KiB" in found.prompt_text()


def test_nothing_found_is_empty(tmp_path: Path) -> None:
    found = load_instructions(tmp_path, tmp_path / "none")
    assert found.files == [] and found.prompt_text() == ""
