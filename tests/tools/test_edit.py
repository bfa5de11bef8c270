"""write_file and edit_file: atomic, mode kept, diffs, exact-once edits."""

from __future__ import annotations

import concurrent.futures.thread  # noqa: F401  (asyncio.to_thread's: loaded before acting as nobody)
import io
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.policy import decide
from swebash_py.approvals.rules import RuleSet
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.errors import ToolFailed
from swebash_py.tools.base import Preview, ToolContext
from swebash_py.tools.edit import EditFile, WriteFile, WriteFileArgs
from swebash_py.tools.registry import builtin_traits
from swebash_py.ui.question import question_renderable
from tests.tools.conftest import call


async def test_write_creates_parents_and_reports(workspace: Path, ctx: ToolContext) -> None:
    result = await call(WriteFile(), ctx, path="a/b/new.txt", content="one\ntwo\n")
    assert (workspace / "a/b/new.txt").read_text() == "one\ntwo\n"
    assert result.output == "Created a/b/new.txt (2 lines; +2 -0)"
    assert result.display is not None and "+one\n+two\n" in result.display
    assert "--- /dev/null" in result.display


async def test_write_replaces_and_diffs(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_text("keep\nold\n")
    preview = WriteFile().preview(WriteFile.Args(path="f.txt", content="keep\nnew\n"), ctx)
    assert preview.detail_kind == "diff" and "-old\n+new\n" in (preview.detail or "")
    assert (workspace / "f.txt").read_text() == "keep\nold\n"
    result = await call(WriteFile(), ctx, path="f.txt", content="keep\nnew\n")
    assert result.output == "Updated f.txt (2 lines; +1 -1)"
    assert result.display == preview.detail
    assert (workspace / "f.txt").read_text() == "keep\nnew\n"


def test_write_preview_of_new_file_shows_content(ctx: ToolContext) -> None:
    preview = WriteFile().preview(WriteFile.Args(path="n.txt", content="hello\n"), ctx)
    assert preview.detail_kind == "file" and preview.detail == "hello\n"
    assert not preview.outside


async def test_mode_is_kept_and_new_files_follow_umask(workspace: Path, ctx: ToolContext) -> None:
    script = workspace / "run.sh"
    script.write_text("echo a\n")
    script.chmod(0o750)
    await call(EditFile(), ctx, path="run.sh", old_text="echo a", new_text="echo b")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    await call(WriteFile(), ctx, path="run.sh", content="echo c\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    old = os.umask(0o022)
    try:
        await call(WriteFile(), ctx, path="fresh.txt", content="x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((workspace / "fresh.txt").stat().st_mode) == 0o644


async def test_failed_write_leaves_original_intact(workspace: Path, ctx: ToolContext,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (workspace / "f.txt").write_text("original\n")

    def broken_fsync(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(ToolFailed, match="No space left on device; the file is unchanged"):
        await call(WriteFile(), ctx, path="f.txt", content="replacement\n")
    with pytest.raises(ToolFailed, match="No space left"):
        await call(EditFile(), ctx, path="f.txt", old_text="original", new_text="changed")
    monkeypatch.undo()
    assert (workspace / "f.txt").read_text() == "original\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["f.txt"]  # no temp files left


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
async def test_read_only_directory(workspace: Path, ctx: ToolContext) -> None:
    locked = workspace / "locked"
    locked.mkdir()
    (locked / "f.txt").write_text("original\n")
    locked.chmod(0o555)
    try:
        with pytest.raises(ToolFailed, match="Permission denied"):
            await call(WriteFile(), ctx, path="locked/f.txt", content="new\n")
    finally:
        locked.chmod(0o755)
    assert (locked / "f.txt").read_text() == "original\n"


async def test_edit_exactly_once(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n\ndef b():\n    return 2\n")
    tool = EditFile()
    args = tool.Args(path="m.py", old_text="return 2", new_text="return 3")
    preview = tool.preview(args, ctx)
    assert preview.detail_kind == "diff"
    assert "-    return 2\n+    return 3\n" in (preview.detail or "")
    assert "return 2" in (workspace / "m.py").read_text()  # preview changed nothing
    result = await tool.run(args, ctx)
    assert (workspace / "m.py").read_text().endswith("return 3\n")
    assert result.display == preview.detail and result.output.startswith("Edited m.py")


async def test_edit_zero_matches(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n")
    with pytest.raises(ToolFailed, match=r"not found in m\.py"):
        await call(EditFile(), ctx, path="m.py", old_text="return 9", new_text="x")
    with pytest.raises(ToolFailed, match="whitespace"):
        await call(EditFile(), ctx, path="m.py", old_text="def a():\n  return 1", new_text="x")
    assert (workspace / "m.py").read_text() == "def a():\n    return 1\n"


async def test_edit_two_matches_names_the_lines(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("x = 1\ny = 2\nx = 1\n")
    with pytest.raises(ToolFailed, match=r"matches 2 times in m.py \(at lines 1, 3\)"):
        await call(EditFile(), ctx, path="m.py", old_text="x = 1", new_text="x = 5")
    assert (workspace / "m.py").read_text() == "x = 1\ny = 2\nx = 1\n"


async def test_edit_errors(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.txt").write_text("abc\n")
    (workspace / "bin").write_bytes(b"a\x00b")
    with pytest.raises(ToolFailed, match="no such file"):
        await call(EditFile(), ctx, path="missing.txt", old_text="a", new_text="b")
    with pytest.raises(ToolFailed, match="empty"):
        await call(EditFile(), ctx, path="m.txt", old_text="", new_text="b")
    with pytest.raises(ToolFailed, match="identical"):
        await call(EditFile(), ctx, path="m.txt", old_text="abc", new_text="abc")
    with pytest.raises(ToolFailed, match="binary"):
        await call(EditFile(), ctx, path="bin", old_text="a", new_text="b")
    with pytest.raises(ToolFailed, match="not found"):  # inside: fails before any question
        EditFile().preview(EditFile.Args(path="m.txt", old_text="zzz", new_text="y"), ctx)


async def test_a_failing_edit_outside_the_workspace_still_asks(tmp_path: Path,
                                                               ctx: ToolContext) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("secret words\n")
    # failing at once would tell the model what a file it may not read holds
    preview = EditFile().preview(EditFile.Args(path=str(outside), old_text="zzz",
                                               new_text="y"), ctx)
    assert preview.outside and "will fail" in (preview.detail or "")


async def test_edit_keeps_non_utf8_bytes_and_crlf(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "l1.txt").write_bytes(b"caf\xe9\r\nold line\r\nend\r\n")
    await call(EditFile(), ctx, path="l1.txt", old_text="old line\nend", new_text="new\nend")
    assert (workspace / "l1.txt").read_bytes() == b"caf\xe9\r\nnew\r\nend\r\n"


async def test_write_onto_directory_is_refused(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(ToolFailed, match="is a directory"):
        await call(WriteFile(), ctx, path="d", content="x")


def test_outside_and_hard_link_previews(workspace: Path, ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "other.txt").write_text("x\n")
    os.link(tmp_path / "other.txt", workspace / "hl.txt")
    assert WriteFile().preview(WriteFile.Args(path="hl.txt", content="y"), ctx).outside
    assert EditFile().preview(EditFile.Args(path="hl.txt", old_text="x", new_text="y"),
                              ctx).outside
    assert WriteFile().preview(WriteFile.Args(path="../x.txt", content="y"), ctx).outside


@pytest.fixture
def as_nobody() -> Iterator[Path]:
    """A workspace nobody can enter and write, and this thread acting as nobody
    (root reads every file: the permission denial has to be real). What the test
    uses is imported before (the checkout may not be readable by nobody)."""
    if os.geteuid() != 0:
        pytest.skip("switching the effective user needs root")
    folder = Path(tempfile.mkdtemp(prefix="swebash-unreadable-"))
    folder.chmod(0o777)
    try:
        os.seteuid(65534)
        try:
            yield folder.resolve()
        finally:
            os.seteuid(0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _question(preview: Preview, args: WriteFileArgs) -> list[str]:
    tool = WriteFile()
    pending = PendingCall(ToolUseBlock("w", "write_file", json.dumps(args.to_dict())), tool,
                          args, preview)
    out = io.StringIO()
    Console(file=out, width=100, height=40, color_system=None).print(
        question_renderable(pending, Verdict("ask"), None))
    return out.getvalue().splitlines()


def test_write_over_an_unreadable_file_says_it_replaces_one_and_asks(as_nobody: Path) -> None:
    """The wall: the file is there but cannot be read: never shown as a new file."""
    secret = as_nobody / "locked.txt"
    secret.write_text("old\n")
    secret.chmod(0o200)  # write-only: nobody may not read it
    args = WriteFile.Args(path="locked.txt", content="new\n")
    preview = WriteFile().preview(args, ToolContext(workspace=as_nobody))
    assert preview.detail_kind == "replaced" and preview.detail == "new\n"
    assert preview.must_ask and "cannot read (permission denied)" in preview.must_ask
    lines = _question(preview, args)
    assert lines[0] == "? write_file locked.txt (replaces an unreadable file, 1 line):"
    assert not any("new file" in line for line in lines)
    assert any("replaces a file it cannot read" in line for line in lines)
    assert _decided(preview, args, as_nobody) == "ask"  # even where edits run unasked


def test_twin_the_same_file_readable_shows_a_diff_and_a_missing_one_is_new(
        as_nobody: Path) -> None:
    readable = as_nobody / "open.txt"
    readable.write_text("old\n")
    readable.chmod(0o666)
    ctx = ToolContext(workspace=as_nobody)
    preview = WriteFile().preview(WriteFile.Args(path="open.txt", content="new\n"), ctx)
    assert preview.detail_kind == "diff" and "-old\n+new\n" in (preview.detail or "")
    assert preview.must_ask is None
    assert _decided(preview, WriteFile.Args(path="open.txt", content="new\n"), as_nobody) \
        == "allow"
    fresh = WriteFile().preview(WriteFile.Args(path="fresh.txt", content="new\n"), ctx)
    assert fresh.detail_kind == "file" and fresh.must_ask is None


def _decided(preview: Preview, args: WriteFileArgs, workspace: Path) -> str:
    """What auto-edit mode does with the call (no rules)."""
    return decide(builtin_traits()["write_file"], args.to_dict(), preview, "auto-edit",
                  RuleSet.from_lists([], []), workspace).action


async def test_approved_write_over_an_unreadable_file_replaces_it_and_says_so(
        as_nobody: Path) -> None:
    """After the question: the write goes ahead (nothing to checkpoint here) and the
    result says what it replaced, not "Created"."""
    locked = as_nobody / "locked.txt"
    locked.write_text("old\n")
    locked.chmod(0o200)
    result = await call(WriteFile(), ToolContext(workspace=as_nobody), path="locked.txt",
                        content="new\n")
    assert result.output == "Replaced locked.txt, which could not be read (1 lines; no diff)"
    os.seteuid(0)
    try:
        assert locked.read_text() == "new\n"
    finally:
        os.seteuid(65534)
