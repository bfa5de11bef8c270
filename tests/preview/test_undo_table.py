"""The differential table, through /undo: each command runs (a) directly in
one copy of a fixture tree (the plain workspace-write sandbox) and (b) as a
preview applied in another copy with the turn's checkpoints recording it (the
store ``/undo`` and ``ai undo`` read). The two trees must be identical (names,
types, bytes, permission bits, owners, symlink targets, hard-link groups, user
xattrs; timestamps excepted); then ``/undo`` of that turn must give back the
original tree exactly.

Each row can fail: its twin applies the change set less one change (or undoes
less one path) and the same comparison must see the difference."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from swebash_py.checkpoints.flow import last_turn, take_back
from swebash_py.checkpoints.revert import Outcome
from swebash_py.engine.messages import TextBlock
from swebash_py.preview.changes import ChangeSet
from swebash_py.preview.checkpoint import StoreJournal
from swebash_py.preview.run import Preview
from swebash_py.store import Store
from swebash_py.store.recorder import StoreRecorder
from tests.preview.conftest import needs_overlay, snapshot
from tests.preview.test_table import base_tree, preview_of, run_direct

pytestmark = needs_overlay
OTHER = 1000  # a second owner (we run as root here; without root, the owner rows say so)
PY = "python3 -c"


def fixture_tree(ws: Path) -> None:
    """``base_tree`` plus what the owner, set-id and hard-link rows need."""
    base_tree(ws)
    (ws / "suid.sh").write_text("#!/bin/sh\n")
    (ws / "suid.sh").chmod(0o4755)
    (ws / "tree" / "sub" / "deep.lnk").symlink_to("../top.txt")
    os.link(ws / "tree" / "top.txt", ws / "top.hard")
    shared = ws / "shared"  # another user's, open to all (the sandbox maps no other ids)
    shared.mkdir(0o777)
    shared.chmod(0o777)
    (shared / "theirs.txt").write_text("someone else's\n")
    (shared / "theirs.txt").chmod(0o666)
    if os.geteuid() == 0:
        os.chown(shared / "theirs.txt", OTHER, OTHER)
        os.chown(shared, OTHER, OTHER)


ROWS: list[Any] = [
    ("create-file", "echo hi > new.txt"),
    ("modify-file", "echo more >> a.txt"),
    ("delete-file", "rm a.txt"),
    ("truncate-to-empty", "truncate -s 0 a.txt"),
    ("mkdir-tree", "mkdir -p x/y/z && echo z > x/y/z/f"),
    ("rm-rf-dir", "rm -rf tree"),
    ("whiteout-then-recreate", "rm -rf tree && mkdir -p tree/sub && echo new > tree/sub/f9"),
    ("chmod-file", "chmod 640 a.txt"),
    ("chmod-dir", "chmod 700 tree/sub"),
    ("chmod-setuid", "chmod u+s script.sh"),
    ("setuid-dropped-by-write", "echo x >> suid.sh"),
    ("modify-other-owner", "echo mine >> shared/theirs.txt"),
    ("replace-other-owner", "sed -i s/else/ELSE/ shared/theirs.txt"),
    ("create-in-other-owner-dir", "echo n > shared/new && chmod 600 shared/new"),
    ("rm-in-other-owner-dir", "rm shared/theirs.txt"),
    ("ln-hard", "ln a.txt a.hard"),
    ("ln-s", "ln -s a.txt link1"),
    ("symlink-retarget", "ln -sfn b.txt link0"),
    ("symlink-delete", "rm tree/sub/deep.lnk"),
    ("mv-across-dirs", "mv a.txt tree/sub/"),
    ("mv-linked-file-across-dirs", "mv b.txt tree/sub/"),
    ("rename-dir", "mv tree/sub tree/sub2"),
    ("rename-dir-with-a-linked-file", "mv tree moved"),
    ("rename-dir-then-recreate", "mv tree moved && mkdir tree && echo n > tree/n"),
    ("rename-dir-into-new-dir", "mkdir -p new/place && mv tree new/place/"),
    ("rename-dir-twice-nested", "mv tree moved && mv moved/sub moved/sub2 && "
     "echo x >> moved/sub2/f0.txt"),
    ("swap-dirs", "mkdir other && echo o > other/o && mv tree t && mv other tree && mv t other"),
    ("rename-other-owners-dir", "mv shared ours"),
    ("hard-link-modify", "echo more >> b.txt"),
    ("hard-link-modify-other-name", "echo more >> top.hard"),
    ("mv-linked-then-append", "mv b.txt tree/ && echo x >> tree/b.txt && chmod 600 tree/b.txt"),
    ("hard-link-modify-then-delete", "echo more >> b.txt && rm b.txt"),
    ("hard-link-chmod", "chmod 600 b.hard"),
    ("hard-link-replace", "sed -i s/b/B/ b.txt"),
    ("hard-link-delete-one", "rm b.hard"),
    ("hard-link-delete-both", "rm b.txt b.hard"),
    ("xattr-set", f"{PY} \"import os; os.setxattr('b.txt', 'user.x', b'1')\""),
    ("xattr-remove", f"{PY} \"import os; os.removexattr('a.txt', 'user.note')\""),
    ("mkfifo", "mkfifo pipe"),
    ("file-to-dir", "rm a.txt && mkdir a.txt && echo i > a.txt/inner"),
    ("dir-to-file", "rm -rf tree && echo f > tree"),
    ("symlink-to-file", "rm link0 && echo real > link0"),
]


@dataclass
class Row:
    original: dict[str, Any]
    direct: Path
    previewed: Path
    preview: Preview
    code: int


def start(tmp: Path, command: str) -> Row:
    """Two identical copies; the command run directly in one, previewed in the other."""
    direct, previewed = tmp / "direct", tmp / "previewed"
    direct.mkdir(parents=True)
    fixture_tree(direct)
    subprocess.run(["cp", "-a", "--preserve=all", f"{direct}/.", str(previewed)], check=True)
    original = snapshot(previewed)
    assert snapshot(direct) == original
    code = asyncio.run(run_direct(direct, command))
    preview = asyncio.run(preview_of(previewed, command))
    assert preview.result.returncode == code, preview.result.output
    assert snapshot(previewed) == original  # the preview itself changed nothing real
    assert preview.changed, preview.result.output
    return Row(original, direct, previewed, preview, code)


def apply_recorded(row: Row, tmp: Path, changes: ChangeSet | None = None) -> Store:
    """Apply inside one recorded turn, as the agent does; returns the store."""
    store = Store(tmp / "db" / "sessions.db")
    recorder = StoreRecorder(store, "m", str(row.previewed), None)
    recorder.begin_turn("run it")
    recorder.add_block(TextBlock("running"))
    journal = StoreJournal(recorder, [row.previewed])
    if changes is not None:
        row.preview.changes = changes
    report = row.preview.apply(journal)
    assert report.conflicts == []
    journal.commit("run_command")
    assert journal.note() is None
    recorder.finish_turn("stop", {}, None)
    store.session_for_test = recorder.session_id  # type: ignore[attr-defined]
    return store


def undo(store: Store, ws: Path, skip_one: bool = False) -> Outcome:
    session = store.session_for_test  # type: ignore[attr-defined]
    back = last_turn(store, session)
    assert back is not None
    if skip_one:  # the last path, and its other names (undoing one undoes them all)
        last = back.plans[-1].restore.inode
        back.plans = [p for p in back.plans[:-1] if last is None or p.restore.inode != last]
    shown: list[str] = []
    outcome = asyncio.run(take_back(store, back, ws, shown.append, None))
    assert outcome is not None
    return outcome


def _name(row: Any) -> str:
    return str(row.values[0] if hasattr(row, "values") else row[0])


@pytest.mark.parametrize(("name", "command"), ROWS, ids=list(map(_name, ROWS)))
def test_apply_then_undo(tmp_path: Path, name: str, command: str) -> None:
    row = start(tmp_path, command)
    store = apply_recorded(row, tmp_path)
    assert snapshot(row.previewed) == snapshot(row.direct), name

    outcome = undo(store, row.previewed)
    assert outcome.skipped == [] and outcome.failed == []
    assert snapshot(row.previewed) == row.original, name


@pytest.mark.parametrize(("name", "command"), [r.values if hasattr(r, "values") else r
                                               for r in ROWS], ids=list(map(_name, ROWS)))
def test_twin_the_comparisons_see_one_change_missing(tmp_path: Path, name: str,
                                                    command: str) -> None:
    """Twin of each row: one change left out of the apply, and one path left
    out of the undo: the same snapshot comparisons must fail."""
    row = start(tmp_path, command)
    changes = row.preview.changes
    victim = next((c for c in reversed(changes.changes) if c.action != "delete"),
                  changes.changes[-1])
    less = ChangeSet([c for c in changes.changes if c is not victim], changes.start_ns)
    store = apply_recorded(row, tmp_path, less)
    assert snapshot(row.previewed) != snapshot(row.direct), name

    shutil.rmtree(tmp_path / "db")
    shutil.rmtree(row.previewed)
    row = start(tmp_path / "again", command)
    store = apply_recorded(row, tmp_path / "again")
    undo(store, row.previewed, skip_one=True)
    assert snapshot(row.previewed) != row.original, name


def test_the_table_covers_the_brief() -> None:
    assert len(ROWS) >= 20


def test_twin_without_the_inode_write_a_hard_link_diverges(tmp_path: Path) -> None:
    """Twin of ``hard-link-modify``: applied as a plain replacement (what apply
    did before the overlay index), b.hard keeps the old bytes and leaves the
    group, so the table's comparison fails."""
    import dataclasses

    row = start(tmp_path, "echo more >> b.txt")
    (change,) = row.preview.changes.changes
    assert change.in_place and set(change.aliases) == {"b.txt", "b.hard"}
    plain = dataclasses.replace(change, in_place=False, aliases=())
    apply_recorded(row, tmp_path, ChangeSet([plain], row.preview.changes.start_ns))
    after, direct = snapshot(row.previewed), snapshot(row.direct)
    assert after["b.hard"]["sha"] != direct["b.hard"]["sha"]
    assert "group" not in after["b.txt"] and "group" in direct["b.txt"]


def test_a_user_edit_to_a_linked_file_still_conflicts(tmp_path: Path) -> None:
    """Our own unlinks move a shared inode's ctime, and are forgiven; the
    user's append to that inode is not."""
    row = start(tmp_path, "rm b.txt b.hard")
    with open(row.previewed / "b.hard", "a") as fh:
        fh.write("the user's\n")
    report = row.preview.apply()
    assert sorted(c.rel for c, _ in report.conflicts) == ["b.hard", "b.txt"]
    assert (row.previewed / "b.txt").read_text() == "b\nthe user's\n"


def test_a_user_edit_inside_a_renamed_dir_stops_the_rename(tmp_path: Path) -> None:
    row = start(tmp_path, "mv tree moved && echo x >> moved/top.txt")
    (row.previewed / "tree" / "sub" / "f1.txt").write_text("the user's\n")
    report = row.preview.apply()
    assert "moved" in {c.rel for c, _ in report.conflicts}
    assert (row.previewed / "tree" / "sub" / "f1.txt").read_text() == "the user's\n"
    assert not (row.previewed / "moved").exists()
    assert not [p for p in os.listdir(row.previewed) if p.startswith(".swebash")]
