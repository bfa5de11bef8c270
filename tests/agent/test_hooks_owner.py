"""The hooks run through the one process owner (#27/#28 leftover): what a
tool's child gets, a hook gets too. Each wall has a twin that shows the hook
still works where it should."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path

import pytest

from swebash_py.agent.hooks import run_post_hooks, run_pre_hooks
from tests.sandbox.conftest import host_pids, wait_until

SECRET = "hook-secret-value-12345"


def payload(ws: Path) -> dict[str, object]:
    return {"tool": "run_command", "call_id": "c1", "arguments": {"command": "ls"},
            "workspace": str(ws)}


async def test_a_hook_runs_with_the_users_whole_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook is the user's own program (a notifier needs its SLACK_TOKEN): the
    process owner changes how it is contained, not what it may know."""
    monkeypatch.setenv("DEPLOY_TOKEN", SECRET)
    monkeypatch.setenv("HOOK_PLAIN_SETTING", "visible-1")
    warnings = await run_post_hooks(["env > env.txt"], payload(tmp_path), 10)
    seen = (tmp_path / "env.txt").read_text()
    assert warnings == []
    assert f"DEPLOY_TOKEN={SECRET}" in seen and "HOOK_PLAIN_SETTING=visible-1" in seen


async def test_a_loud_hook_is_kept_bounded_and_still_denies(tmp_path: Path) -> None:
    hook = "head -c 5000000 /dev/zero | tr '\\0' x; echo 'too loud, no' >&2; exit 2"
    outcome = await run_pre_hooks([hook], payload(tmp_path), 30)
    assert outcome.denied and outcome.reason == "too loud, no"


async def test_twin_a_quiet_hook_denies_by_json(tmp_path: Path) -> None:
    hook = """cat > got.json; echo '{"decision": "deny", "reason": "json says no"}'"""
    outcome = await run_pre_hooks([hook], payload(tmp_path), 10)
    assert outcome.denied and outcome.reason == "json says no"
    assert json.loads((tmp_path / "got.json").read_text())["event"] == "pre_tool"


async def test_cancelling_a_hook_ends_what_it_started_with_setsid(tmp_path: Path) -> None:
    marker = f"sleep 1000.71{os.getpid()}"  # unique: a stray from another run is not ours
    hook = f"setsid {marker} > /dev/null 2>&1 < /dev/null & touch started; sleep 60"
    task = asyncio.create_task(run_pre_hooks([hook], payload(tmp_path), 60))
    assert await asyncio.to_thread(wait_until, (tmp_path / "started").exists)
    assert await asyncio.to_thread(wait_until, lambda: host_pids(marker))
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    # the owner ends the hook's cgroup / supervised tree, setsid escapes included
    assert await asyncio.to_thread(wait_until, lambda: not host_pids(marker))


async def test_twin_a_hook_that_finishes_leaves_its_verdict(tmp_path: Path) -> None:
    outcome = await run_pre_hooks(["touch ran; exit 0"], payload(tmp_path), 10)
    assert not outcome.denied and outcome.warnings == []
    assert (tmp_path / "ran").exists() and os.path.isdir(tmp_path)


async def test_a_pre_hook_whose_verdict_was_cut_denies(tmp_path: Path) -> None:
    """A deny JSON longer than what is kept cannot be read: fail closed. The twin:
    the same hook's short verdict is read (allow), so a cut is what denies."""
    long_deny = ("python3 -c 'import json; print(json.dumps({\"decision\": \"deny\", "
                 "\"reason\": \"no\", \"pad\": \"x\" * 300000}))'")
    outcome = await run_pre_hooks([long_deny], payload(tmp_path), 30)
    assert outcome.denied and "too large" in outcome.reason
    short_allow = "python3 -c 'import json; print(json.dumps({\"decision\": \"allow\"}))'"
    assert not (await run_pre_hooks([short_allow], payload(tmp_path), 30)).denied
