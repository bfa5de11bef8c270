"""The data directory (conversations, REPL history, remembered approvals) is made
private to its owner when `ai` creates it; one that already exists keeps its mode."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from swebash_py.doctor.checks import paths_check
from swebash_py.paths import ensure_data_dir


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
