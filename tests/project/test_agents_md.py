"""AGENTS.md from the git root down to the working directory, plus the user's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def test_an_agents_md_linked_to_a_key_is_skipped_with_a_note(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (repo / "AGENTS.md").symlink_to("../.ssh/id_ed25519")
    (repo / "sub").mkdir()
    (repo / "sub" / "AGENTS.md").write_text("sub rules")  # twin: read all the same
    found = load_instructions(repo / "sub", tmp_path / "none")
    assert [t for _, t in found.files] == ["sub rules"]
    assert len(found.notes) == 1 and "secrets path" in found.notes[0]
    assert "PRIVATE KEY" not in found.prompt_text()


@pytest.mark.parametrize("target", ["/dev/zero", "/proc/self/environ", "../outside.md"])
def test_an_agents_md_leading_out_of_the_project_is_skipped(tmp_path: Path,
                                                            target: str) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "outside.md").write_text("outside rules")
    (repo / "AGENTS.md").symlink_to(target)
    found = load_instructions(repo, tmp_path / "none")
    assert found.files == [] and len(found.notes) == 1
    assert "outside" in found.notes[0]


def test_a_fifo_agents_md_is_skipped_without_blocking(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    os.mkfifo(repo / "AGENTS.md")
    found = load_instructions(repo, tmp_path / "none")
    assert found.files == [] and "FIFO" in found.notes[0]


def test_the_user_file_may_link_inside_its_folder_only(tmp_path: Path) -> None:
    user = tmp_path / "config"
    user.mkdir()
    (user / "shared.md").write_text("user rules")
    (user / "AGENTS.md").symlink_to("shared.md")
    found = load_instructions(tmp_path, user)
    assert [t for _, t in found.files] == ["user rules"]  # twin: inside its folder
    (user / "AGENTS.md").unlink()
    (tmp_path / "elsewhere.md").write_text("elsewhere")
    (user / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    assert load_instructions(tmp_path / "none", user).files == []


def test_a_huge_file_is_cut_at_the_cap_before_reading(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with (repo / "AGENTS.md").open("wb") as f:
        f.write(b"rules " * 10_000)
        f.truncate(1 << 40)  # 1 TB, sparse
    found = load_instructions(repo, tmp_path / "none")
    assert found.cut and len(found.files[0][1].encode()) == CAP_BYTES


def test_a_file_after_the_budget_is_spent_is_cut_not_dropped_silently(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "AGENTS.md").write_text("a" * CAP_BYTES)  # exactly the budget
    (repo / "sub").mkdir()
    (repo / "sub" / "AGENTS.md").write_text("more")
    found = load_instructions(repo / "sub", tmp_path / "none")
    assert [len(t) for _, t in found.files] == [CAP_BYTES] and found.cut
