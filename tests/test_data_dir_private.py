"""The data directory (conversations, REPL history, remembered approvals) is made
private to its owner when `ai` creates it; one that already exists keeps its mode."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from swebash_py.doctor.checks import paths_check
from swebash_py.store.faults import ensure_data_dir


def test_a_new_data_directory_is_private(tmp_path: Path) -> None:
    made = ensure_data_dir(tmp_path / "share" / "swebash")
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_an_existing_directory_keeps_its_mode(tmp_path: Path) -> None:
    existing = tmp_path / "mine"
    existing.mkdir()
    existing.chmod(0o750)
    assert stat.S_IMODE(ensure_data_dir(existing).stat().st_mode) == 0o750


def test_doctor_makes_it_private_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / "data"))
    paths_check()
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700


def test_a_new_database_is_owner_only(tmp_path: Path) -> None:
    from swebash_py.store import Store

    store = Store(tmp_path / "data" / "sessions.db")
    store.close()
    assert stat.S_IMODE((tmp_path / "data" / "sessions.db").stat().st_mode) == 0o600


def test_a_database_others_could_read_is_made_owner_only(tmp_path: Path) -> None:
    """Written by 0.1 in a folder left 0755 (the folder keeps its mode, see above)."""
    from swebash_py.store import Store

    Store(tmp_path / "sessions.db").close()
    (tmp_path / "sessions.db").chmod(0o644)
    Store(tmp_path / "sessions.db").close()
    assert stat.S_IMODE((tmp_path / "sessions.db").stat().st_mode) == 0o600


def test_the_twin_a_file_not_ours_keeps_its_mode(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above is not vacuous: private_file leaves alone what another user owns."""
    import os

    from swebash_py.config.paths import private_file

    path = tmp_path / "theirs"
    path.write_text("x")
    path.chmod(0o644)
    monkeypatch.setattr(os, "getuid", lambda: 12345)
    private_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_read_only_file_that_cannot_be_tightened_is_used_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from swebash_py.config.paths import private_file

    path = tmp_path / "history"
    path.write_text("x")
    path.chmod(0o644)

    def refuse(self: Path, mode: int) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Path, "chmod", refuse)
    assert private_file(path) == path
