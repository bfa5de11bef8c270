"""Through the installed ``ai`` (#27): the question shows ``+ d/new.txt``;
while it is open ``d`` becomes a symlink to a folder outside; on ``y`` nothing
is created outside: the swap is shown and asked about again, and even a second
yes writes nothing through it. Twin: without the swap, ``y`` lands the file in
the workspace. And ``ai undo`` of the applied changes, the same."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import run_ai
from tests.e2e.test_pty import finish, model_args
from tests.fakeprovider import FakeProvider, Reply
from tests.preview.conftest import needs_overlay
from tests.preview.test_e2e import last_result
from tests.sandbox.conftest import command_reply

pytestmark = [needs_overlay, pytest.mark.pty]
COMMAND = "echo new > d/new.txt"


@pytest.mark.parametrize("swapped", [True, False])
def test_a_folder_swapped_while_the_question_is_open_is_never_written_through(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, tmp_path: Path,
        swapped: bool) -> None:
    (workspace / "d").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    fake_provider.queue(command_reply(COMMAND), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect(r"\+ d/new.txt")
    child.expect("Allow these changes")
    if swapped:  # what a background command can do while the question waits
        os.rename(workspace / "d", tmp_path / "d-moved")
        os.symlink(outside, workspace / "d")
    child.sendline("y")
    if swapped:
        child.expect("some of its changes meet yours")
        child.expect(r"! \+ d/new.txt")
        child.expect("symlink")
        child.expect("Allow these changes")
        child.sendline("y")  # even the user's second yes does not follow it
    child.expect("all done")
    assert finish(child) == 0
    sent, _ = last_result(fake_provider)
    if swapped:
        assert os.listdir(outside) == []
        assert not (tmp_path / "d-moved" / "new.txt").exists()
        assert "not applied" in sent and "d/new.txt" in sent and "symlink" in sent
    else:
        assert (workspace / "d" / "new.txt").read_text() == "new\n"
        assert "changes applied" in sent and "not applied" not in sent


@pytest.mark.parametrize("swapped", [True, False])
def test_ai_undo_of_an_applied_preview_never_writes_through_a_swapped_folder(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, tmp_path: Path,
        swapped: bool) -> None:
    """After the apply ``d`` becomes a symlink to a folder that looks exactly like
    what undo expects (so nothing there counts as changed since): ``ai undo``
    still writes nothing through it and says why. Twin: undone in the workspace."""
    (workspace / "d").mkdir()
    (workspace / "d" / "kept.txt").write_text("kept\n")
    fake_provider.queue(command_reply("echo more >> d/kept.txt && echo new > d/new.txt"),
                        Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    outside = tmp_path / "outside"
    shutil.copytree(workspace / "d", outside)  # the same names, bytes, bits, owners
    if swapped:
        os.rename(workspace / "d", tmp_path / "d-moved")
        os.symlink(outside, workspace / "d")
    done = run_ai("undo", "--yes", cwd=workspace)
    said = done.stdout + done.stderr
    if swapped:
        assert (outside / "kept.txt").read_text() == "kept\nmore\n"
        assert (outside / "new.txt").read_text() == "new\n"
        assert "could not restore" in said and "symlink" in said, said
    else:
        assert done.returncode == 0, said
        assert (workspace / "d" / "kept.txt").read_text() == "kept\n"
        assert not (workspace / "d" / "new.txt").exists()
