"""The sweep that removes settings a workspace-write run planted: only what is
new, never through a symlink, never the user's own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swebash_py.config.settings import Settings
from swebash_py.fs.writer import remove_if_same
from swebash_py.sandbox import pathindex, settings_guard
from swebash_py.sandbox.build import build_policy
from swebash_py.sandbox.pathindex import PathIndex
from swebash_py.sandbox.policy import SandboxPolicy


@pytest.fixture(autouse=True)
def fresh_index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(pathindex, "INDEX", PathIndex(margin_ns=0))
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("SWEBASH_CONFIG", str(tmp_path / "config" / "config.toml"))


def policy_for(ws: Path, mode: str = "auto") -> SandboxPolicy:
    settings = Settings.from_data({"sandbox": {"mode": mode}})
    return build_policy(settings.sandbox, "write", ws)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "app" / ".swebash").mkdir(parents=True)
    (root / "app" / ".swebash" / "config.toml").write_text("# user's\n")
    return Path(os.path.realpath(root))


def test_new_settings_are_removed_and_the_users_kept(ws: Path) -> None:
    policy = policy_for(ws)
    (ws / ".swebash").mkdir()
    (ws / ".swebash" / "config.toml").write_text("planted")
    (ws / "lib" / "x").mkdir(parents=True)
    (ws / "lib" / "x" / ".swebash").symlink_to(ws / "app" / ".swebash")
    (ws / "notes").mkdir()
    (ws / "notes" / "config.toml").write_text("kept")  # twin: not settings
    removed = settings_guard.sweep(policy, remove_if_same)
    assert set(removed) == {ws / ".swebash", ws / "lib" / "x" / ".swebash"}
    assert not os.path.lexists(ws / ".swebash") and not os.path.lexists(ws / "lib/x/.swebash")
    assert (ws / "app" / ".swebash" / "config.toml").read_text() == "# user's\n"
    assert (ws / "notes" / "config.toml").read_text() == "kept"
    note = settings_guard.sweep_note(removed, ws)
    assert "\n" not in note and "lib/x/.swebash" in note


def test_a_folder_moved_with_its_settings_is_not_planted(ws: Path) -> None:
    policy = policy_for(ws)
    os.rename(ws / "app", ws / "app2")
    assert settings_guard.sweep(policy, remove_if_same) == []
    assert (ws / "app2" / ".swebash" / "config.toml").exists()


def test_our_own_config_planted_in_the_workspace_is_removed(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWEBASH_CONFIG", str(ws / "ai.toml"))
    policy = policy_for(ws)
    (ws / "ai.toml").write_text('[hooks]\npre_tool = ["touch x"]\n')
    assert settings_guard.sweep(policy, remove_if_same) == [ws / "ai.toml"]
    assert not (ws / "ai.toml").exists()


def test_read_only_runs_are_not_swept(ws: Path) -> None:
    """Nothing to sweep where nothing could be written (twin of the above: the
    same plant, by the user, under a read-only policy, stays)."""
    policy = policy_for(ws, "read-only")
    (ws / ".swebash").mkdir()
    assert settings_guard.sweep(policy, remove_if_same) == []
    assert (ws / ".swebash").is_dir()


def test_the_sweep_follows_no_symlink(ws: Path, tmp_path: Path) -> None:
    """A parent swapped for a symlink between the judgment and the removal (a
    background command still running) makes the removal refuse: the very entry
    judged, now reached through a symlink to a folder outside, is not touched
    (a walk that followed the link would find the same identity and remove it).
    Twin: without the swap it is removed."""
    (ws / "lib" / ".swebash").mkdir(parents=True)
    ident = settings_guard.identity(ws / "lib" / ".swebash")
    assert ident is not None
    outside = tmp_path / "outside"
    os.rename(ws / "lib", outside)
    (ws / "lib").symlink_to(outside)
    assert settings_guard.identity(ws / "lib" / ".swebash") == ident  # same entry via link
    assert not remove_if_same(ws, Path("lib/.swebash"), ident)
    assert (outside / ".swebash").is_dir()
    os.unlink(ws / "lib")
    os.rename(outside, ws / "lib")
    assert remove_if_same(ws, Path("lib/.swebash"), ident)
    assert not (ws / "lib" / ".swebash").exists()
