"""The one atomic write: modes kept or chosen, no temporary file left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from swebash_py.atomic import write_atomic


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_new_mode_and_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    fresh = tmp_path / "sub" / "a.json"
    write_atomic(fresh, b"{}", new_mode=0o600)
    assert fresh.read_bytes() == b"{}" and mode(fresh) == 0o600
    kept = tmp_path / "run.sh"
    kept.write_text("old")
    kept.chmod(0o755)
    write_atomic(kept, b"new", new_mode=0o600)
    assert kept.read_text() == "new" and mode(kept) == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh", "sub"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")

    def fail(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, b"new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
