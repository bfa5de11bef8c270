"""Second outside audit, `--json`: a stream that breaks in the middle of a tool
call still closes every block it opened, then error, then turn_complete last;
the plain output does not show the cut call as if it had been made."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall

CUT = Reply(text="Writing it.", chunk_size=10, error_after=4, tool_calls=[
    ToolCall("c1", "write_file", json.dumps({"path": "x.txt", "content": "abc" * 50}))])


def test_cut_tool_call_block_is_closed(fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(CUT)
    done = run_ai(*model_args(fake_provider), "--json", "-y", "write it", cwd=workspace)
    assert done.returncode == 1
    events = [json.loads(line) for line in done.stdout.splitlines()]
    opened = [e["index"] for e in events if e["type"] == "block_start"]
    closed = [e["index"] for e in events if e["type"] == "block_stop"]
    assert opened == closed == [0, 1]
    cut = [e for e in events if e["type"] == "block_stop"][-1]
    assert (cut["kind"], cut["call_id"], cut["is_error"]) == ("tool_use", "c1", True)
    assert [e["type"] for e in events[-2:]] == ["error", "turn_complete"]
    assert not (workspace / "x.txt").exists()


def test_plain_output_does_not_show_the_cut_call(fake_provider: FakeProvider,
                                                 workspace: Path) -> None:
    fake_provider.queue(CUT)
    done = run_ai(*model_args(fake_provider), "-y", "write it", cwd=workspace)
    assert done.returncode == 1
    assert "write_file" not in done.stdout + done.stderr
    assert done.stderr.startswith("ai: provider error mid-stream")
