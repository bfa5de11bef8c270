"""read_file and list_directory on real files, special files included."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from swebash_py.errors import ToolFailed
from swebash_py.tools import files
from swebash_py.tools.base import ToolContext
from swebash_py.tools.files import LIST_CAP, READ_CAP, ListDirectory, ReadFile, read_numbered
from tests.tools.conftest import call


async def test_numbered_lines(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_text("alpha\nbeta\ngamma\n")
    result = await call(ReadFile(), ctx, path="f.txt")
    assert result.output == "     1\talpha\n     2\tbeta\n     3\tgamma"
    assert not result.is_error


async def test_offset_and_limit_page_with_a_note(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await call(ReadFile(), ctx, path="f.txt", offset=4, limit=3)
    lines = result.output.splitlines()
    assert lines[:3] == ["     4\tline 4", "     5\tline 5", "     6\tline 6"]
    assert "offset=7" in lines[3]
    last = await call(ReadFile(), ctx, path="f.txt", offset=9, limit=5)
    assert last.output.splitlines() == ["     9\tline 9", "    10\tline 10"]


async def test_offset_past_end_and_empty_file(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_text("a\nb\n")
    (workspace / "empty").write_text("")
    assert "past the end" in (await call(ReadFile(), ctx, path="f.txt", offset=5)).output
    assert "empty" in (await call(ReadFile(), ctx, path="empty")).output


async def test_last_line_without_newline(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_bytes(b"one\r\ntwo")
    assert (await call(ReadFile(), ctx, path="f.txt")).output == "     1\tone\n     2\ttwo"


async def test_invalid_utf8_is_replaced(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    assert (await call(ReadFile(), ctx, path="latin1.txt")).output == "     1\tcaf\ufffd"


async def test_binary_file_refused(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "img.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ToolFailed, match="binary"):
        await call(ReadFile(), ctx, path="img.bin")


async def test_size_cap_says_where_to_continue(workspace: Path, ctx: ToolContext) -> None:
    line = "x" * 999 + "\n"
    (workspace / "big.txt").write_text(line * 1000)  # ~1 MB, 1000 lines
    result = await call(ReadFile(), ctx, path="big.txt")
    assert len(result.output) <= READ_CAP + 200
    shown = result.output.count("\n")
    assert 200 < shown < 300
    assert f"offset={shown + 1}" in result.output.splitlines()[-1]
    follow = await call(ReadFile(), ctx, path="big.txt", offset=shown + 1, limit=1)
    assert follow.output.startswith(f"{shown + 1:6}\tx")


async def test_very_long_line_is_cut(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "min.js").write_text("a" * 100_000 + "\nnext\n")
    out = (await call(ReadFile(), ctx, path="min.js")).output.splitlines()
    assert "line cut" in out[0] and len(out[0]) < 5000
    assert out[1] == "     2\tnext"


def test_slice_of_a_huge_sparse_file(workspace: Path) -> None:
    path = workspace / "huge.txt"
    with path.open("wb") as f:
        f.write(b"first\n")
        f.seek(100 * 1024 * 1024)  # 100 MB of NULs after the first line
        f.write(b"\nlast\n")
    with pytest.raises(ToolFailed, match="binary"):
        read_numbered(path, "huge.txt", 1, 10)  # NULs in the first 8 KiB
    text = workspace / "text.txt"
    with text.open("w") as f:
        for i in range(200_000):
            f.write(f"row {i}\n")
    assert read_numbered(text, "text.txt", 150_000, 2).splitlines()[:2] == [
        "150000\trow 149999", "150001\trow 150000"]


async def test_directory_fifo_socket_device_refused(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    os.mkfifo(workspace / "pipe")  # nobody writes: opening it blocking would hang
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(workspace / "sock"))
    try:
        with pytest.raises(ToolFailed, match="directory"):
            await call(ReadFile(), ctx, path="d")
        with pytest.raises(ToolFailed, match="FIFO"):
            await call(ReadFile(), ctx, path="pipe")
        with pytest.raises(ToolFailed, match="not a regular file"):
            await call(ReadFile(), ctx, path="sock")
        with pytest.raises(ToolFailed, match="character device"):
            await call(ReadFile(), ctx, path="/dev/zero")
    finally:
        sock.close()


async def test_proc_style_file_is_bounded(ctx: ToolContext,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    result = await call(ReadFile(), ctx, path="/proc/self/status")
    assert "Name:" in result.output and "endless" not in result.output
    monkeypatch.setattr(files, "ENDLESS_CAP", 200)  # size-0 files stop after this many bytes
    capped = await call(ReadFile(), ctx, path="/proc/self/status")
    assert "may be endless" in capped.output
    assert capped.output.count("\n") < result.output.count("\n")


async def test_missing_file(ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match="no such file"):
        await call(ReadFile(), ctx, path="nope.txt")


def test_read_preview_marks_outside(ctx: ToolContext) -> None:
    preview = ReadFile().preview(ReadFile.Args(path="/etc/hostname"), ctx)
    assert preview.outside and preview.paths == [Path("/etc/hostname")]


async def test_list_directory(workspace: Path, ctx: ToolContext, tmp_path: Path) -> None:
    (workspace / "b.txt").write_bytes(b"x" * 2048)
    (workspace / "a_dir").mkdir()
    (workspace / "c").symlink_to("b.txt")
    (workspace / "dead").symlink_to(tmp_path / "missing")
    os.mkfifo(workspace / "fifo")
    lines = (await call(ListDirectory(), ctx, path=".")).output.splitlines()
    assert lines[1:] == ["a_dir/", "b.txt  (2.0 KiB)", "c@ -> b.txt",
                         f"dead@ -> {tmp_path / 'missing'}", "fifo  (FIFO)"]
    assert "5 entries" in lines[0]


async def test_list_directory_cap_and_errors(workspace: Path, ctx: ToolContext) -> None:
    many = workspace / "many"
    many.mkdir()
    for i in range(LIST_CAP + 7):
        (many / f"f{i:04}").touch()
    out = (await call(ListDirectory(), ctx, path="many")).output.splitlines()
    assert out[1] == "f0000  (0 B)"
    assert len(out) == LIST_CAP + 2 and "7 more entries" in out[-1]
    with pytest.raises(ToolFailed, match="no such directory"):
        await call(ListDirectory(), ctx, path="missing")
    (workspace / "file").touch()
    with pytest.raises(ToolFailed, match="not a directory"):
        await call(ListDirectory(), ctx, path="file")


@pytest.mark.parametrize(("content", "offset", "expected"), [
    (b"a\nb", 2, "     2\tb"), (b"a\nb", 3, "past the end of f.txt (2 lines)"),
    (b"a\nb\n", 3, "past the end of f.txt (2 lines)"), (b"", 4, "is empty"),
    (b"\n\n", 2, "     2\t"), (b"only", 1, "     1\tonly"), (b"only", 2, "(1 lines)")])
async def test_offset_edges(workspace: Path, ctx: ToolContext, content: bytes, offset: int,
                            expected: str) -> None:
    (workspace / "f.txt").write_bytes(content)
    assert expected in (await call(ReadFile(), ctx, path="f.txt", offset=offset)).output


def test_skip_across_block_boundaries(workspace: Path) -> None:
    path = workspace / "blocks.txt"
    line = b"y" * 1023 + b"\n"  # 1 KiB lines: 1 MiB blocks end exactly on a line
    path.write_bytes(line * 3000 + b"tail")
    out = read_numbered(path, "blocks.txt", 3001, 5).splitlines()
    assert out == ["  3001\ttail"]
    assert read_numbered(path, "blocks.txt", 2048, 1).startswith("  2048\tyyy")
    assert "past the end" in read_numbered(path, "blocks.txt", 3002, 1)
