"""write_beneath lands in the directory that was resolved, or fails: a directory
swapped for a symlink between the check and the write is never followed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from swebash_py.atomic import write_atomic
from swebash_py.fs.writer import PathMoved, write_beneath


def test_writes_creates_parents_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path.resolve() / "a" / "b" / "f.txt"
    write_beneath(target, b"one", 0o640)
    assert target.read_bytes() == b"one" and (target.stat().st_mode & 0o777) == 0o640
    target.chmod(0o600)
    write_beneath(target, b"two", 0o644)
    assert target.read_bytes() == b"two" and (target.stat().st_mode & 0o777) == 0o600
    assert sorted(os.listdir(target.parent)) == ["f.txt"]  # no temporary file left


@pytest.mark.parametrize("writer", ["beneath", "atomic"])
def test_a_swapped_directory_is_not_followed(tmp_path: Path, writer: str) -> None:
    ws, outside = tmp_path.resolve() / "ws", tmp_path.resolve() / "outside"
    (ws / "d").mkdir(parents=True)
    outside.mkdir()
    target = ws / "d" / "f.txt"  # resolved and judged while d was a directory
    shutil.rmtree(ws / "d")
    os.symlink(outside, ws / "d")
    if writer == "atomic":  # the twin: the plain atomic write follows the link
        write_atomic(target, b"x")
        assert (outside / "f.txt").exists()
        return
    with pytest.raises(PathMoved):
        write_beneath(target, b"x", 0o644)
    assert os.listdir(outside) == []


def test_a_file_swapped_for_a_link_is_replaced_not_followed(tmp_path: Path) -> None:
    ws, outside = tmp_path.resolve() / "ws", tmp_path.resolve() / "secret"
    ws.mkdir()
    outside.write_text("keep")
    os.symlink(outside, ws / "f.txt")
    write_beneath(ws / "f.txt", b"new", 0o644)
    assert outside.read_text() == "keep"
    assert not (ws / "f.txt").is_symlink() and (ws / "f.txt").read_text() == "new"
