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
