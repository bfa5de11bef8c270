"""Checkpoints through the real write/edit tools and the store: undo and rewind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swebash_py.checkpoints.flow import Ask, from_turn, last_turn, take_back
from swebash_py.engine.messages import TextBlock
from swebash_py.store import Store
from swebash_py.store.recorder import StoreRecorder
from swebash_py.tools.base import ToolContext
from swebash_py.tools.edit import EditFile, WriteFile
from tests.tools.conftest import call


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "db" / "sessions.db")


@pytest.fixture
def recorder(store: Store, workspace: Path) -> StoreRecorder:
    return StoreRecorder(store, "m", str(workspace), None)


@pytest.fixture
def tctx(workspace: Path, recorder: StoreRecorder) -> ToolContext:
    return ToolContext(workspace=workspace, checkpoints=recorder)


def answers(*said: bool) -> tuple[Ask, list[str]]:
    asked: list[str] = []
    queue = list(said)

    async def ask(question: str) -> bool:
        asked.append(question)
        return queue.pop(0)
    return ask, asked


async def turn(recorder: StoreRecorder, text: str, *calls: tuple[object, dict[str, str]],
               ctx: ToolContext) -> None:
    recorder.begin_turn(text)
    recorder.add_block(TextBlock(f"reply to {text}"))
    for tool, arguments in calls:
        result = await call(tool, ctx, **arguments)  # type: ignore[arg-type]
        assert not result.is_error, result.output
    recorder.finish_turn("stop", {}, None)


async def undo_last(store: Store, recorder: StoreRecorder, workspace: Path,
                    ask: Ask | None) -> list[str]:
    shown: list[str] = []
    assert recorder.session_id is not None
    back = last_turn(store, recorder.session_id)
    assert back is not None
    await take_back(store, back, workspace, shown.append, ask)
    return shown


async def test_undo_a_write_deletes_the_new_file(store: Store, recorder: StoreRecorder,
                                                 tctx: ToolContext, workspace: Path) -> None:
    await turn(recorder, "make a note", (WriteFile(), {"path": "sub/note.txt",
                                                       "content": "hello\n"}), ctx=tctx)
    ask, asked = answers(True)
    shown = await undo_last(store, recorder, workspace, ask)
    assert not (workspace / "sub/note.txt").exists()
    assert "(delete sub/note.txt)" in shown[0] and "-hello" in shown[0]
    assert asked == ["Undo these changes? [y/N] "]
    assert last_turn(store, recorder.session_id or "") is None  # nothing left to undo


async def test_undo_a_write_removes_the_folders_it_created(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    (workspace / "kept").mkdir()
    await turn(recorder, "make a note", (WriteFile(), {"path": "kept/a/b/note.txt",
                                                       "content": "hello\n"}), ctx=tctx)
    assert (workspace / "kept/a/b/note.txt").exists()
    ask, _asked = answers(True)
    shown = await undo_last(store, recorder, workspace, ask)
    assert not (workspace / "kept/a").exists()
    assert (workspace / "kept").is_dir()  # there before: stays
    assert any("kept/a/b: directory" in line for line in shown)


async def test_undo_keeps_a_created_folder_someone_filled(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    """Twin: the same folders, but the user put a file in one: it stays, with the file."""
    await turn(recorder, "make a note", (WriteFile(), {"path": "a/b/note.txt",
                                                       "content": "hello\n"}), ctx=tctx)
    (workspace / "a/mine.txt").write_text("mine\n")
    ask, _asked = answers(True)
    await undo_last(store, recorder, workspace, ask)
    assert not (workspace / "a/b").exists()
    assert (workspace / "a/mine.txt").read_text() == "mine\n"


async def test_undo_an_edit_restores_content_and_mode(store: Store, recorder: StoreRecorder,
                                                      tctx: ToolContext,
                                                      workspace: Path) -> None:
    target = workspace / "app.py"
    target.write_text("x = 1\n")
    target.chmod(0o750)
    await turn(recorder, "bump", (EditFile(), {"path": "app.py", "old_text": "x = 1",
                                               "new_text": "x = 2"}), ctx=tctx)
    assert target.read_text() == "x = 2\n"
    ask, _ = answers(True)
    shown = await undo_last(store, recorder, workspace, ask)
    assert target.read_text() == "x = 1\n" and (target.stat().st_mode & 0o777) == 0o750
    assert "-x = 2" in shown[0] and "+x = 1" in shown[0]


async def test_saying_no_changes_nothing(store: Store, recorder: StoreRecorder,
                                         tctx: ToolContext, workspace: Path) -> None:
    await turn(recorder, "write", (WriteFile(), {"path": "a.txt", "content": "new\n"}),
               ctx=tctx)
    ask, _ = answers(False)
    await undo_last(store, recorder, workspace, ask)
    assert (workspace / "a.txt").read_text() == "new\n"
    assert last_turn(store, recorder.session_id or "") is not None  # still undoable


async def test_a_sequence_of_writes_and_edits_comes_back_whole(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    (workspace / "old.txt").write_text("one\ntwo\n")
    await turn(recorder, "many changes",
               (WriteFile(), {"path": "new.txt", "content": "a\n"}),
               (EditFile(), {"path": "new.txt", "old_text": "a", "new_text": "b"}),
               (EditFile(), {"path": "old.txt", "old_text": "two", "new_text": "2"}),
               (WriteFile(), {"path": "old.txt", "content": "replaced\n"}), ctx=tctx)
    ask, _ = answers(True)
    await undo_last(store, recorder, workspace, ask)
    assert not (workspace / "new.txt").exists()
    assert (workspace / "old.txt").read_text() == "one\ntwo\n"


async def test_undo_walks_back_turn_by_turn(store: Store, recorder: StoreRecorder,
                                           tctx: ToolContext, workspace: Path) -> None:
    await turn(recorder, "first", (WriteFile(), {"path": "f.txt", "content": "1\n"}), ctx=tctx)
    await turn(recorder, "second", (WriteFile(), {"path": "f.txt", "content": "2\n"}), ctx=tctx)
    await turn(recorder, "just talk", ctx=tctx)
    for expected in ("1\n", None):
        ask, _ = answers(True)
        await undo_last(store, recorder, workspace, ask)
        target = workspace / "f.txt"
        assert (target.read_text() if target.exists() else None) == expected


async def test_a_file_changed_since_is_not_overwritten_silently(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    (workspace / "keep.txt").write_text("base\n")
    await turn(recorder, "edit two",
               (EditFile(), {"path": "keep.txt", "old_text": "base", "new_text": "ours"}),
               (WriteFile(), {"path": "other.txt", "content": "x\n"}), ctx=tctx)
    (workspace / "keep.txt").write_text("the user's own work\n")
    # nobody to ask (--yes): the other file is restored, the changed one left alone
    shown = await undo_last(store, recorder, workspace, None)
    assert (workspace / "keep.txt").read_text() == "the user's own work\n"
    assert not (workspace / "other.txt").exists()
    assert any("keep.txt was changed since" in line for line in shown)
    assert any("left alone: keep.txt" in line for line in shown)
    # asked, and the answer to overwriting is no: still left alone
    ask, asked = answers(True, False)
    await undo_last(store, recorder, workspace, ask)
    assert (workspace / "keep.txt").read_text() == "the user's own work\n"
    assert asked[1] == "Overwrite keep.txt, which was changed since? [y/N] "
    # and yes overwrites it
    ask, _ = answers(True, True)
    await undo_last(store, recorder, workspace, ask)
    assert (workspace / "keep.txt").read_text() == "base\n"


async def test_the_twin_an_unchanged_file_is_restored_without_an_extra_question(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    (workspace / "keep.txt").write_text("base\n")
    await turn(recorder, "edit", (EditFile(), {"path": "keep.txt", "old_text": "base",
                                               "new_text": "ours"}), ctx=tctx)
    ask, asked = answers(True)
    await undo_last(store, recorder, workspace, ask)
    assert (workspace / "keep.txt").read_text() == "base\n" and len(asked) == 1


async def test_turns_that_ran_commands_say_their_changes_are_not_tracked(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    from swebash_py.engine.messages import ToolUseBlock

    recorder.begin_turn("build")
    recorder.add_block(ToolUseBlock("c1", "run_command", '{"command": "make"}'))
    await call(WriteFile(), tctx, path="out.txt", content="x\n")
    recorder.finish_turn("stop", {}, None)
    shown = await undo_last(store, recorder, workspace, answers(True)[0])
    assert any("shell commands ran in this turn" in line and "not tracked" in line
               for line in shown)


async def test_twin_a_turn_whose_calls_run_no_command_says_nothing_of_it(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    """Which calls ran commands is the tool's trait (command_arg), not a name in a query."""
    from swebash_py.engine.messages import ToolUseBlock

    recorder.begin_turn("build")
    recorder.add_block(ToolUseBlock("c1", "read_file", '{"path": "out.txt"}'))
    await call(WriteFile(), tctx, path="out.txt", content="x\n")
    recorder.finish_turn("stop", {}, None)
    shown = await undo_last(store, recorder, workspace, answers(True)[0])
    assert not any("shell commands ran" in line for line in shown)


async def test_rewind_across_three_turns_restores_files_and_conversation(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path) -> None:
    for n in (1, 2, 3):
        await turn(recorder, f"turn {n}", (WriteFile(), {"path": "f.txt",
                                                         "content": f"{n}\n"}), ctx=tctx)
    sid = recorder.session_id or ""
    back = from_turn(store, sid, 2)
    ask, _ = answers(True)
    await take_back(store, back, workspace, lambda _t: None, ask, always_ask=True)
    assert store.mark_rewound(sid, 2) == 2
    assert (workspace / "f.txt").read_text() == "1\n"
    texts = [b.text for m in store.load_messages(sid) for b in m.blocks
             if isinstance(b, TextBlock)]
    assert texts == ["turn 1", "reply to turn 1"]
    recorder.resume(sid)
    await turn(recorder, "turn 4", ctx=tctx)  # the conversation goes on from there
    texts = [b.text for m in store.load_messages(sid) for b in m.blocks
             if isinstance(b, TextBlock)]
    assert texts == ["turn 1", "reply to turn 1", "turn 4", "reply to turn 4"]
    assert [t.seq for t in store.live_turns(sid)] == [1, 4]
    exported = store.export(sid)
    assert "## Turn 2 (rewound" in exported and "## Turn 4\n" in exported


async def test_writes_outside_a_turn_or_without_a_store_still_work(workspace: Path) -> None:
    result = await call(WriteFile(), ToolContext(workspace=workspace), path="x.txt",
                        content="x")
    assert not result.is_error and (workspace / "x.txt").read_text() == "x"
    assert os.path.exists(workspace / "x.txt")


@pytest.mark.parametrize("swapped", [True, False])
async def test_undo_never_writes_through_a_folder_swapped_for_a_symlink(
        store: Store, recorder: StoreRecorder, tctx: ToolContext, workspace: Path,
        tmp_path: Path, swapped: bool) -> None:
    """After the turn, ``d`` becomes a symlink to a folder outside; even when the
    user says yes to overwriting, undo does not follow it. Twin: ``d`` replaced
    by a real folder is restored through."""
    (workspace / "d").mkdir()
    (workspace / "d" / "f.txt").write_text("base\n")
    await turn(recorder, "edit", (EditFile(), {"path": "d/f.txt", "old_text": "base",
                                               "new_text": "ours"}), ctx=tctx)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("not ours\n")
    (workspace / "d" / "f.txt").unlink()
    (workspace / "d").rmdir()
    if swapped:
        (workspace / "d").symlink_to(outside)
    else:
        (workspace / "d").mkdir()
        (workspace / "d" / "f.txt").write_text("not ours\n")
    ask, _ = answers(True, True)
    shown = await undo_last(store, recorder, workspace, ask)
    if swapped:
        assert (outside / "f.txt").read_text() == "not ours\n"
        assert any("symlink" in line for line in shown), shown
    else:
        assert (workspace / "d" / "f.txt").read_text() == "base\n"
