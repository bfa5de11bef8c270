"""The one reader (``fs.reader``): the path policy's judgement, regular files only
(never blocking), no symlink followed after judging, the cap before reading.
Every wall has a twin: the same call on an ordinary file reads it."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from swebash_py.fs.reader import (
    OURS,
    OUTSIDE,
    SECRET,
    Unreadable,
    judge,
    open_regular,
    read_allowed,
    read_capped,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "notes.txt").write_text("hello\n")
    return Path(os.path.realpath(path))


def test_an_ordinary_file_inside_is_allowed_and_read(ws: Path) -> None:
    access = judge("notes.txt", ws)
    assert access.allowed and access.path == ws / "notes.txt"
    assert read_allowed(access, "notes.txt", 100).data == b"hello\n"


def test_a_link_to_a_private_key_is_a_secret(ws: Path) -> None:
    (ws.parent / ".ssh").mkdir()
    (ws.parent / ".ssh" / "id_ed25519").write_text("KEY")
    (ws / "AGENTS.md").symlink_to("../.ssh/id_ed25519")
    access = judge("AGENTS.md", ws)
    assert access.problem == SECRET
    with pytest.raises(Unreadable, match="secrets path"):
        read_allowed(access, "AGENTS.md", 100)


def test_a_secret_by_its_own_name_counts_whatever_it_points_to(ws: Path) -> None:
    (ws / "plain.txt").write_text("x")
    (ws / ".env").symlink_to("plain.txt")
    assert judge(".env", ws).problem == SECRET
    assert judge("plain.txt", ws).allowed  # twin: the target by its own name


def test_outside_the_roots_and_a_twin_root_that_allows_it(ws: Path) -> None:
    (ws / "env").symlink_to("/proc/self/environ")
    assert judge("env", ws).problem == OUTSIDE
    outside = ws.parent / "shared.md"
    outside.write_text("x")
    assert judge(str(outside), ws).problem == OUTSIDE
    assert judge(str(outside), ws, (ws, ws.parent)).allowed


def test_our_own_config_is_refused(ws: Path, isolated: Path) -> None:
    config = isolated / "config.toml"
    config.write_text("")
    assert judge(str(config), ws, (Path("/"),)).problem == OURS


def test_a_symlink_loop_is_a_problem_not_a_crash(ws: Path) -> None:
    (ws / "a").symlink_to("b")
    (ws / "b").symlink_to("a")
    assert "symlink loop" in judge("a", ws).problem


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "directory"])
def test_anything_but_a_regular_file_is_refused_without_blocking(ws: Path, kind: str) -> None:
    path = ws / kind
    held = None
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        held = socket.socket(socket.AF_UNIX)
        held.bind(str(path))
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path.mkdir()
    try:
        started = time.monotonic()
        with pytest.raises(Unreadable, match=r"not a regular file|a directory"):
            read_capped(path, kind, 10)
        assert time.monotonic() - started < 2
    finally:
        if held is not None:
            held.close()


def test_the_cap_holds_before_reading(ws: Path) -> None:
    big = ws / "big.md"
    with big.open("wb") as f:
        f.write(b"abc")
        f.truncate(1 << 40)  # 1 TB, sparse: only a cap before reading gets through
    capped = read_capped(big, "big.md", 5)
    assert capped.data == b"abc\0\0" and capped.cut
    small = read_capped(ws / "notes.txt", "notes.txt", 6)  # twin: exactly the cap
    assert small.data == b"hello\n" and not small.cut


def test_a_cut_inside_a_character_drops_it(ws: Path) -> None:
    (ws / "u.txt").write_text("aé")  # é is two bytes
    assert read_capped(ws / "u.txt", "u.txt", 2).text() == "a"


def test_a_directory_swapped_for_a_symlink_after_judging_is_not_followed(ws: Path) -> None:
    (ws / "d").mkdir()
    (ws / "d" / "f.txt").write_text("inside")
    access = judge("d/f.txt", ws)
    assert read_capped(access.path, "d/f.txt", 100).data == b"inside"  # twin: unswapped
    elsewhere = ws.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "f.txt").write_text("outside")
    shutil.rmtree(ws / "d")
    (ws / "d").symlink_to(elsewhere)
    with pytest.raises(Unreadable, match="symlink appeared"):
        open_regular(access.path, "d/f.txt")


def test_a_file_swapped_for_a_symlink_after_judging_is_not_followed(ws: Path) -> None:
    access = judge("notes.txt", ws)
    (ws / "notes.txt").unlink()
    (ws / "notes.txt").symlink_to("/etc/hostname")
    with pytest.raises(Unreadable, match="symlink appeared"):
        open_regular(access.path, "notes.txt")


def test_a_missing_file_is_one_line(ws: Path) -> None:
    with pytest.raises(Unreadable, match=r"^nope: no such file$"):
        read_capped(ws / "nope", "nope", 10)
