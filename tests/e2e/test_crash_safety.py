"""Crash safety of a real `ai`: kill -9 and SIGTERM at several points of a turn,
then check the store against what really ran (and what `ai -c` tells the model)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.agent.helpers import assert_paired, sent_results
from tests.e2e.conftest import run_ai
from tests.e2e.crashkit import (
    block_stops,
    kill_group,
    last_stop_reason,
    lost_blocks,
    result_for,
    start_ai,
    stored_blocks,
    wait_until,
)
from tests.fakeprovider import FakeProvider, Reply, ToolCall

SLEEP = "sleep 31.41"  # durations no other process on the machine uses


def _cmd(call_id: str, command: str) -> ToolCall:
    return ToolCall(call_id, "run_command", json.dumps({"command": command}))


def _two_commands(sleep: str) -> Reply:
    """c1 finishes at once; c2 marks that it started, then runs for a long time."""
    return Reply(text="Two steps. ", tool_calls=[
        _cmd("c1", "echo one > one.txt && echo wrote one"),
        _cmd("c2", f"touch two.started && {sleep} && touch two.done")])


def _ai(fp: FakeProvider, workspace: Path, *extra: str):  # type: ignore[no-untyped-def]
    return start_ai("-y", "--json", "-m", "openai/x", "--api-base", fp.url, *extra,
                    "do the two steps", cwd=workspace, env={"PYTHONFAULTHANDLER": "1"})


def _sleepers(sleep: str) -> list[int]:
    """Processes still running our long command."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if sleep.encode() in cmdline and b"touch" not in cmdline:
                found.append(int(entry.name))
    return found


def _resume(fp: FakeProvider, workspace: Path) -> list[tuple[str, str, bool]]:
    """`ai -c`: the tool results the model is told about, in call order."""
    fp.queue(Reply(text="Carrying on."))
    result = run_ai("-c", "-m", "openai/x", "--api-base", fp.url, "go on", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert_paired(fp.requests[-1])
    return sent_results(fp.requests[-1])


def test_kill_9_between_two_tool_results(fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(_two_commands(SLEEP + "59"))
    process = _ai(fake_provider, workspace)
    try:
        wait_until("c2 to start", (workspace / "two.started").exists)
        os.kill(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
    finally:
        kill_group(process)
        for pid in _sleepers(SLEEP + "59"):  # orphaned by kill -9: nothing could stop it
            os.kill(pid, signal.SIGKILL)
    assert (workspace / "one.txt").read_text() == "one\n"  # c1 really ran ...
    first = result_for("c1")  # ... and its result was committed before c2 began
    assert first is not None and "wrote one" in first["text"] and not first["is_error"]
    assert result_for("c2") is None  # in flight: the one thing a kill may lose
    assert lost_blocks(block_stops(stdout), stored_blocks()) == []
    results = _resume(fake_provider, workspace)
    assert [r[0] for r in results] == ["c1", "c2"]
    assert "wrote one" in results[0][1] and "interrupted" not in results[0][1]
    assert "interrupted" in results[1][1]


def test_kill_9_while_the_reply_streams_after_a_result(fake_provider: FakeProvider,
                                                       workspace: Path) -> None:
    """A read-only call finishes while the model is still streaming its reply:
    its result is stored at once, and a resume puts it after the whole reply."""
    (workspace / "notes.txt").write_text("the notes\n")
    slow = json.dumps({"path": "x" * 4000})
    fake_provider.queue(Reply(text="Reading. ", chunk_size=4, delay=0.01, tool_calls=[
        ToolCall("r1", "read_file", '{"path": "notes.txt"}'),
        ToolCall("r2", "read_file", slow)]))
    process = _ai(fake_provider, workspace)
    try:
        wait_until("r1's result in the store", lambda: result_for("r1") is not None)
        os.kill(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
    finally:
        kill_group(process)
    kinds = [(b["type"], b.get("step")) for b in stored_blocks()]
    assert kinds == [("text", 1), ("tool_use", 1), ("tool_result", 1)]
    assert lost_blocks(block_stops(stdout), stored_blocks()) == []
    results = _resume(fake_provider, workspace)
    assert results == [("r1", results[0][1], False)] and "the notes" in results[0][1]


def test_kill_9_during_the_second_request_keeps_the_first_round(
        fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(Reply(text="Step one. ", tool_calls=[_cmd("c1", "echo hi > hi.txt")]),
                        Reply(text="slow words " * 400, chunk_size=10, delay=0.01))
    process = _ai(fake_provider, workspace)
    try:
        fake_provider.wait_for_requests(2, timeout=30)
        os.kill(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
    finally:
        kill_group(process)
    assert (workspace / "hi.txt").exists()
    assert [b["type"] for b in stored_blocks()][:3] == ["text", "tool_use", "tool_result"]
    assert lost_blocks(block_stops(stdout), stored_blocks()) == []
    assert _resume(fake_provider, workspace)[0][0] == "c1"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_stop_signal_between_two_results_ends_the_turn_like_ctrl_c(
        fake_provider: FakeProvider, workspace: Path, signum: int, code: int) -> None:
    sleep = f"{SLEEP}{signum:02d}"
    fake_provider.queue(_two_commands(sleep))
    process = _ai(fake_provider, workspace)
    try:
        wait_until("c2 to start", (workspace / "two.started").exists)
        os.kill(process.pid, signum)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGABRT)  # faulthandler: where it hangs
            print(process.communicate()[1].decode())
        kill_group(process)
    assert process.returncode == code, stderr
    assert b"Traceback" not in stderr
    assert last_stop_reason() == "cancelled"
    first, second = result_for("c1"), result_for("c2")
    assert first is not None and "wrote one" in first["text"]
    assert second is not None and second["is_error"]
    assert not (workspace / "two.done").exists()
    assert _sleepers(sleep) == []  # the tool's process was stopped, not orphaned
    assert lost_blocks(block_stops(stdout), stored_blocks()) == []
    results = _resume(fake_provider, workspace)
    assert [r[0] for r in results] == ["c1", "c2"] and "interrupted" not in results[0][1]


def test_sigterm_while_streaming(fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(Reply(text="slow words " * 400, chunk_size=10, delay=0.01))
    process = start_ai("--json", "-m", "openai/x", "--api-base", fake_provider.url, "talk",
                       cwd=workspace)
    try:
        assert process.stdout is not None
        while b"slow words" not in process.stdout.read1(4096):  # the answer is showing
            pass
        os.kill(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        kill_group(process)
    assert process.returncode == 143, stderr
    assert last_stop_reason() == "cancelled"
    texts = [b["text"] for b in stored_blocks() if b["type"] == "text"]
    assert len(texts) == 1 and texts[0].startswith("slow words")  # the partial answer


def test_the_lost_block_check_catches_a_missing_result() -> None:
    """Twin: the comparison used above does report a block shown but not stored."""
    shown = [{"kind": "tool_result", "call_id": "c1", "content": "wrote one"}]
    assert lost_blocks(shown, []) == ["tool_result c1 'wrote one'"]
    stored = [{"type": "tool_result", "call_id": "c1", "text": "wrote one"}]
    assert lost_blocks(shown, stored) == []
