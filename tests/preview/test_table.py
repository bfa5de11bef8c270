"""Byte for byte: each scripted command runs in two copies of one workspace,
directly (the plain workspace-write sandbox) and as preview + apply; the two
trees must be identical (names, types, bytes, permission bits, owners,
symlink targets, hard-link groups, user xattrs; timestamps excepted). The
preview itself leaves the tree as it was (discard), and undo after apply
restores it."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from swebash_py.preview.journal import ApplyJournal
from swebash_py.preview.run import Preview, run_preview
from swebash_py.sandbox import runner
from swebash_py.sandbox.policy import SandboxPolicy
from tests.preview.conftest import needs_overlay, snapshot

pytestmark = needs_overlay
BIG = 200 * 1024 * 1024


def base_tree(ws: Path) -> None:
    """The shared starting point (small: the big cases add their own)."""
    (ws / "tree" / "sub").mkdir(parents=True)
    for i in range(3):
        (ws / "tree" / "sub" / f"f{i}.txt").write_text(f"line {i}\n")
    (ws / "tree" / "top.txt").write_text("top\n")
    (ws / "a.txt").write_text("alpha\nbeta\n")
    (ws / "b.txt").write_text("b\n")
    (ws / "script.sh").write_text("#!/bin/sh\necho hi\n")
    (ws / "script.sh").chmod(0o755)
    (ws / "base.bin").write_bytes(bytes(range(256)) * 64)
    (ws / "empty").write_bytes(b"")
    (ws / "ro.txt").write_text("read only\n")
    (ws / "ro.txt").chmod(0o444)
    os.symlink("a.txt", ws / "link0")
    os.link(ws / "b.txt", ws / "b.hard")
    os.setxattr(ws / "a.txt", "user.note", b"kept")


def with_big(ws: Path) -> None:
    with open(ws / "big.bin", "wb") as fh:
        block = bytes(range(256)) * 4096  # 1 MiB, not sparse
        for _ in range(BIG // len(block)):
            fh.write(block)


def with_many(ws: Path) -> None:
    many = ws / "many"
    many.mkdir()
    for i in range(10_000):
        (many / f"m{i}").write_text(f"{i}\n")


PY = "python3 -c"
CASES: list[tuple[str, str, Callable[[Path], None] | None]] = [
    ("create", "echo hi > new.txt", None),
    ("append", "echo more >> a.txt", None),
    ("truncate", ": > a.txt", None),
    ("truncate-size", "truncate -s 3 script.sh", None),
    ("delete", "rm a.txt", None),
    ("rm-rf-tree", "rm -rf tree", None),
    ("rm-rf-recreate",
     "rm -rf tree && mkdir -p tree/x && echo new > tree/x/f && echo z > tree/top.txt", None),
    ("rename-file", "mv a.txt renamed.txt", None),
    ("rename-dir", "mv tree moved", None),
    ("chmod-file", "chmod 600 a.txt", None),
    ("chmod-x", "chmod +x b.txt", None),
    ("chmod-dir", "chmod 700 tree/sub", None),
    ("read-only-dir-filled", "mkdir rod && echo x > rod/x && chmod 555 rod", None),
    ("symlink", "ln -s a.txt link1", None),
    ("symlink-retarget", "ln -sfn b.txt link0", None),
    ("symlink-delete", "rm link0", None),
    ("symlink-dangling", "ln -s nowhere/at/all dangling", None),
    ("hard-link", "ln a.txt a.hard", None),
    ("hard-link-new-pair", "echo pair > p1 && ln p1 p2", None),
    ("mkdir-p", "mkdir -p x/y/z", None),
    ("empty-file", "touch empty.new", None),
    ("binary-create", "cat base.bin base.bin > two.bin", None),
    ("binary-patch", "printf XX | dd of=base.bin bs=1 seek=10 conv=notrunc 2>/dev/null", None),
    ("newline-name", "echo n > \"$(printf 'new\\nline')\"", None),
    ("rename-to-newline", "mv a.txt \"$(printf 'a\\nnl')\"", None),
    ("file-to-dir", "rm a.txt && mkdir a.txt && echo i > a.txt/inner", None),
    ("dir-to-file", "rm -rf tree && echo f > tree", None),
    ("sed-i", "sed -i s/alpha/ALPHA/ a.txt", None),
    ("find-delete", "find tree -name 'f1.txt' -delete", None),
    ("rm-recreate-same", "rm a.txt && echo again > a.txt", None),
    ("content-and-mode", "echo x >> script.sh && chmod 700 script.sh", None),
    ("fifo", "mkfifo pipe", None),
    ("xattr-set", f"{PY} \"import os; os.setxattr('b.txt', 'user.k', b'v')\"", None),
    ("xattr-remove", f"{PY} \"import os; os.removexattr('a.txt', 'user.note')\"", None),
    ("read-only-file-replaced", "rm -f ro.txt && echo w > ro.txt && chmod 444 ro.txt", None),
    ("hard-linked-base-chmod", "chmod 600 b.hard", None),
    ("many-create", "mkdir made && cd made && i=0; while [ $i -lt 10000 ]; do "
     "echo $i > f$i; i=$((i+1)); done", None),
    ("many-delete", "rm -rf many", with_many),
    ("big-append", "echo tail >> big.bin", with_big),
]


def make_pair(tmp: Path, extra: Callable[[Path], None] | None) -> tuple[Path, Path]:
    direct, previewed = tmp / "direct", tmp / "previewed"
    direct.mkdir()
    base_tree(direct)
    if extra is not None:
        extra(direct)
    subprocess.run(["cp", "-a", "--preserve=all", f"{direct}/.", str(previewed)], check=True)
    return direct, previewed


async def run_direct(ws: Path, command: str) -> int:
    res = await runner.run(["/bin/sh", "-c", command], SandboxPolicy("workspace-write", ws),
                           timeout=120)
    return res.returncode


async def preview_of(ws: Path, command: str, max_mb: int = 1024) -> Preview:
    return await run_preview(["/bin/sh", "-c", command], SandboxPolicy("workspace-write", ws),
                             timeout=120, max_mb=max_mb)


@pytest.mark.parametrize(("name", "command", "extra"), CASES, ids=[c[0] for c in CASES])
def test_apply_equals_direct(tmp_path: Path, name: str, command: str,
                             extra: Callable[[Path], None] | None) -> None:
    direct, previewed = make_pair(tmp_path, extra)
    before = snapshot(previewed)
    assert snapshot(direct) == before  # the copies start identical

    code = asyncio.run(run_direct(direct, command))
    preview = asyncio.run(preview_of(previewed, command))
    assert preview.result.returncode == code == 0, preview.result.output
    assert snapshot(previewed) == before  # the preview changed nothing real
    assert preview.changed

    journal = ApplyJournal(tmp_path / "undo")
    report = preview.apply(journal)
    assert report.conflicts == []
    assert snapshot(previewed) == snapshot(direct), name

    journal.undo()
    assert snapshot(previewed) == before


def test_table_is_big_enough() -> None:
    assert len(CASES) >= 25


def test_discard_leaves_the_tree(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    base_tree(ws)
    before = snapshot(ws)
    preview = asyncio.run(preview_of(ws, "rm -rf tree && echo x >> a.txt && chmod 700 b.txt"))
    assert len(preview.changes) >= 3
    fd = preview._fd
    preview.discard()
    assert snapshot(ws) == before
    with pytest.raises(OSError):
        os.fstat(fd)  # the overlay's last reference is gone


def test_touch_alone_is_no_change(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    base_tree(ws)
    preview = asyncio.run(preview_of(ws, "touch a.txt && cat a.txt >/dev/null && ls -R"))
    assert not preview.changed
    preview.discard()


def test_a_user_edit_is_not_overwritten(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    base_tree(ws)
    preview = asyncio.run(preview_of(ws, "echo from-command >> a.txt && echo n > new.txt"))
    (ws / "a.txt").write_text("the user's edit\n")
    report = preview.apply()
    assert [(c.rel, why) for c, why in report.conflicts] == \
        [("a.txt", "changed in the workspace since the preview")]
    assert (ws / "a.txt").read_text() == "the user's edit\n"
    assert (ws / "new.txt").read_text() == "n\n"  # what did not conflict was applied


def test_without_a_user_edit_the_same_change_applies(tmp_path: Path) -> None:
    """Twin of the above: the check is what kept the user's edit."""
    ws = tmp_path / "ws"
    ws.mkdir()
    base_tree(ws)
    preview = asyncio.run(preview_of(ws, "echo from-command >> a.txt"))
    report = preview.apply()
    assert report.conflicts == []
    assert (ws / "a.txt").read_text() == "alpha\nbeta\nfrom-command\n"


def test_a_user_edit_inside_a_deleted_tree_is_kept(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    base_tree(ws)
    preview = asyncio.run(preview_of(ws, "rm -rf tree"))
    (ws / "tree" / "sub" / "f0.txt").write_text("user\n")
    report = preview.apply()
    assert report.conflicts and report.conflicts[0][0].rel == "tree"
    assert (ws / "tree" / "sub" / "f0.txt").read_text() == "user\n"


def test_the_bound_stops_a_command_writing_past_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    base_tree(ws)
    before = snapshot(ws)
    preview = asyncio.run(preview_of(ws, "head -c 20000000 /dev/zero > big; echo done", max_mb=8))
    assert preview.over_bound
    assert "No space left on device" in preview.result.output
    with pytest.raises(Exception, match="preview_max_mb = 8"):
        preview.apply()
    assert snapshot(ws) == before


def test_under_the_bound_the_same_command_applies(tmp_path: Path) -> None:
    """Twin: with room, the same write is caught whole and applied."""
    ws = tmp_path / "ws"
    ws.mkdir()
    preview = asyncio.run(preview_of(ws, "head -c 20000000 /dev/zero > big", max_mb=64))
    assert not preview.over_bound
    preview.apply()
    assert (ws / "big").stat().st_size == 20_000_000
