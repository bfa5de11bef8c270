"""Pre/post tool hooks: real shell processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path

from swebash_py.agent.hooks import run_post_hooks, run_pre_hooks

PAYLOAD = {"tool": "run_command", "call_id": "c1", "arguments": {"command": "ls"}}


def payload(ws: Path) -> dict[str, object]:
    return {**PAYLOAD, "workspace": str(ws)}


def gone(pid: int) -> bool:
    """Dead or a zombie (killed, waiting only for its parent to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def wait_until_gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.01)
    return False


async def test_allow_and_payload(tmp_path: Path) -> None:
    outcome = await run_pre_hooks(["cat > seen.json"], payload(tmp_path), 10)
    assert not outcome.denied and outcome.warnings == []
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen == {**payload(tmp_path), "event": "pre_tool"}


async def test_deny_by_exit_2_uses_stderr(tmp_path: Path) -> None:
    outcome = await run_pre_hooks(["echo 'not on fridays' >&2; exit 2", "touch ran"],
                                  payload(tmp_path), 10)
    assert outcome.denied and outcome.reason == "not on fridays"
    assert not (tmp_path / "ran").exists()


async def test_deny_by_json(tmp_path: Path) -> None:
    hook = """echo '{"decision": "deny", "reason": "policy says no"}'"""
    outcome = await run_pre_hooks([hook], payload(tmp_path), 10)
    assert outcome.denied and outcome.reason == "policy says no"


async def test_other_failures_warn_and_do_not_block(tmp_path: Path) -> None:
    outcome = await run_pre_hooks(["echo broken >&2; exit 3", "true", "echo '{\"decision\": 1}'"],
                                  payload(tmp_path), 10)
    assert not outcome.denied
    assert len(outcome.warnings) == 1 and "exit 3" in outcome.warnings[0]
    assert "broken" in outcome.warnings[0]


async def test_hook_that_ignores_stdin(tmp_path: Path) -> None:
    big = {**payload(tmp_path), "arguments": {"content": "x" * 1_000_000}}
    outcome = await run_pre_hooks(["exit 0"], big, 10)
    assert not outcome.denied and outcome.warnings == []


async def test_timeout_kills_the_hook_and_its_children(tmp_path: Path) -> None:
    hook = "echo $$ > shell.pid; sleep 600 & echo $! > child.pid; wait"
    # the bound is for liveness only: without the group kill this hangs for 600 s
    outcome = await asyncio.wait_for(run_pre_hooks([hook], payload(tmp_path), 1), 60)
    assert not outcome.denied
    assert len(outcome.warnings) == 1 and "timed out" in outcome.warnings[0]
    for name in ("shell.pid", "child.pid"):
        assert wait_until_gone(int((tmp_path / name).read_text()))


async def test_cancellation_kills_the_hook(tmp_path: Path) -> None:
    pidfile = tmp_path / "shell.pid"
    task = asyncio.create_task(run_pre_hooks(["echo $$ > shell.pid.tmp; mv shell.pid.tmp "
                                              "shell.pid; exec sleep 30"], payload(tmp_path), 60))
    deadline = time.monotonic() + 10
    while not pidfile.exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert wait_until_gone(int(pidfile.read_text()))


async def test_post_hooks_get_the_result_and_only_warn(tmp_path: Path) -> None:
    data = {**payload(tmp_path), "result": {"output": "ok", "is_error": False}}
    warnings = await run_post_hooks(["cat > post.json", "exit 2"], data, 10)
    assert json.loads((tmp_path / "post.json").read_text())["event"] == "post_tool"
    assert json.loads((tmp_path / "post.json").read_text())["result"]["output"] == "ok"
    assert len(warnings) == 1 and "exit 2" in warnings[0]


async def test_no_hooks(tmp_path: Path) -> None:
    assert (await run_pre_hooks([], payload(tmp_path), 1)).denied is False
    assert await run_post_hooks([], payload(tmp_path), 1) == []
    assert os.path.isdir(tmp_path)
