"""The hole of #27: the question shows ``+ d/new.txt``; while it is open ``d``
becomes a symlink to a folder outside; on ``y`` nothing may be created there.
Real overlays; apply goes through the one writer, which walks every folder by
descriptor and follows no symlink: the swap is a conflict (shown, asked
again), and even the user's second yes does not write through it. Twins: the
same apply without the swap lands in the workspace."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from swebash_py.preview.apply import MOVED, ApplyReport
from swebash_py.preview.journal import ApplyJournal
from swebash_py.preview.run import Preview, run_preview
from swebash_py.sandbox.policy import SandboxPolicy
from tests.preview.conftest import needs_overlay

pytestmark = needs_overlay
COMMAND = "echo new > d/new.txt && echo more >> d/kept.txt"


def setup(tmp_path: Path) -> tuple[Path, Path]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    (ws / "d" / "kept.txt").write_text("kept\n")
    outside.mkdir()
    (outside / "kept.txt").write_text("not ours\n")
    return ws, outside


def preview_of(ws: Path) -> Preview:
    return asyncio.run(run_preview(["/bin/sh", "-c", COMMAND],
                                   SandboxPolicy("workspace-write", ws), timeout=120))


def swap(ws: Path, outside: Path) -> None:
    """``d`` moved away and replaced by a symlink to ``outside`` (a background
    command the user approved can do this while the question is open)."""
    os.rename(ws / "d", ws.parent / "d-moved")
    os.symlink(outside, ws / "d")


def moved(report: ApplyReport) -> list[str]:
    return sorted(c.rel for c, why in report.conflicts if why == MOVED)


@pytest.mark.parametrize("swapped", [True, False])
def test_a_folder_swapped_while_the_question_is_open(tmp_path: Path, swapped: bool) -> None:
    ws, outside = setup(tmp_path)
    preview = preview_of(ws)
    assert sorted(c.rel for c in preview.changes.changes) == ["d/kept.txt", "d/new.txt"]
    if swapped:
        swap(ws, outside)
    report = preview.apply(keep=True)
    if not swapped:  # twin: the same apply lands in the workspace
        assert report.conflicts == []
        assert (ws / "d" / "new.txt").read_text() == "new\n"
        assert (ws / "d" / "kept.txt").read_text() == "kept\nmore\n"
        preview.discard()
        return
    assert moved(report) == ["d/kept.txt", "d/new.txt"]  # shown, to be asked again
    assert sorted(os.listdir(outside)) == ["kept.txt"]
    assert (outside / "kept.txt").read_text() == "not ours\n"
    again = preview.apply_conflicts(report)  # the user's second yes: still not followed
    assert moved(again) == ["d/kept.txt", "d/new.txt"]
    assert sorted(os.listdir(outside)) == ["kept.txt"]
    assert (outside / "kept.txt").read_text() == "not ours\n"
    assert not (ws.parent / "d-moved" / "new.txt").exists()


class SwappingJournal(ApplyJournal):
    """Swaps ``d`` right after apply's conflict check passed, just before the
    write: the race the check alone cannot close (the writer's walk does)."""

    def __init__(self, backup: Path, ws: Path, outside: Path, swapped: bool) -> None:
        super().__init__(backup, [ws])
        self.ws, self.outside, self.swapped = ws, outside, swapped

    def before(self, path: Path) -> None:
        super().before(path)
        if self.swapped and path.name == "new.txt":
            swap(self.ws, self.outside)
            self.swapped = False


@pytest.mark.parametrize("swapped", [True, False])
def test_a_swap_after_the_check_and_before_the_write(tmp_path: Path, swapped: bool) -> None:
    ws, outside = setup(tmp_path)
    preview = preview_of(ws)
    journal = SwappingJournal(tmp_path / "undo", ws, outside, swapped)
    changes = sorted(preview.changes.changes, key=lambda c: c.rel != "d/new.txt")
    preview.changes.changes[:] = changes  # new.txt first: the swap comes before both
    report = preview.apply(journal)
    if swapped:
        assert moved(report) == ["d/kept.txt", "d/new.txt"]
        assert sorted(os.listdir(outside)) == ["kept.txt"]
        assert (outside / "kept.txt").read_text() == "not ours\n"
    else:
        assert report.conflicts == []
        assert (ws / "d" / "new.txt").read_text() == "new\n"


@pytest.mark.parametrize("swapped", [True, False])
def test_undo_of_an_apply_never_follows_a_swapped_folder(tmp_path: Path, swapped: bool) -> None:
    """The apply journal's undo writes through the same writer."""
    ws, outside = setup(tmp_path)
    preview = preview_of(ws)
    journal = ApplyJournal(tmp_path / "undo", [ws])
    assert preview.apply(journal).conflicts == []
    if swapped:
        swap(ws, outside)
        with pytest.raises(OSError, match="symlink"):
            journal.undo()
        assert sorted(os.listdir(outside)) == ["kept.txt"]
        assert (outside / "kept.txt").read_text() == "not ours\n"
    else:  # twin: undo restores the workspace
        journal.undo()
        assert sorted(os.listdir(ws / "d")) == ["kept.txt"]
        assert (ws / "d" / "kept.txt").read_text() == "kept\n"
