"""Nothing outlives the command: not at its end, its timeout or its cancellation
(Ctrl-C), setsid included; inside the sandbox (pid namespace) and outside it
(``grant="host"``: the reaper). Checked by host PID; the twins run outside
without the reaper."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from swebash_py.process import proc, reaper
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand
from tests.sandbox.conftest import host_pids, needs_bwrap, wait_until
from tests.tools.conftest import call

pytestmark = needs_bwrap


def escaping(marker: str) -> str:
    return f"setsid sleep {marker} > /dev/null 2>&1 < /dev/null & sleep 60"


CASES = [("write", True), ("host", True), ("host", False)]  # (grant, reaper)


def _grant(monkeypatch: pytest.MonkeyPatch, grant: str, reaped: bool) -> str:
    if not reaped:  # the twin: outside, without the reaper (or the tree kill on cancel,
        # or the cgroup each child now lives in)
        monkeypatch.setattr(reaper, "wrap", list)
        monkeypatch.setattr(proc, "kill_tree", lambda _pid: None)
        monkeypatch.setattr(proc.cgroups, "child", lambda: None)
        monkeypatch.setattr(proc, "_adopt_orphans", lambda: None)
    return grant


@pytest.mark.parametrize(("grant", "reaped"), CASES)
async def test_timeout_kills_everything(workspace: Path, grant: str, reaped: bool,
                                        reap: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    marker = f"1003.{os.getpid()}{CASES.index((grant, reaped))}"
    _grant(monkeypatch, grant, reaped)
    reap.append(f"sleep {marker}")
    ctx = ToolContext(workspace=workspace, command_timeout=1.0, grant=grant)
    result = await call(RunCommand(), ctx, command=escaping(marker))
    assert result.is_error and "timed out" in result.output
    if not reaped:
        assert host_pids(f"sleep {marker}")  # twin: setsid escaped the process group
    else:
        assert wait_until(lambda: not host_pids(f"sleep {marker}"))


@pytest.mark.parametrize(("grant", "reaped"), CASES)
async def test_cancellation_kills_everything(workspace: Path, grant: str, reaped: bool,
                                             reap: list[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    marker = f"1004.{os.getpid()}{CASES.index((grant, reaped))}"
    _grant(monkeypatch, grant, reaped)
    reap.append(f"sleep {marker}")
    ctx = ToolContext(workspace=workspace, command_timeout=60.0, grant=grant)
    task = asyncio.create_task(call(RunCommand(), ctx, command=escaping(marker)))
    while not host_pids(f"sleep {marker}"):
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    if not reaped:
        assert host_pids(f"sleep {marker}")
    else:
        assert wait_until(lambda: not host_pids(f"sleep {marker}"))
