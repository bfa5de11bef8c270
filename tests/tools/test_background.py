"""Background commands: start, read new output, stop the whole tree, bounded memory,
and nothing survives the session or the death of `ai`."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swebash_py.errors import ToolFailed
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext, ToolResult
from swebash_py.tools.command import RunCommand
from swebash_py.tools.jobs import CommandOutput, StopCommand
from tests.tools.conftest import alive, call, group_members


@pytest.fixture
async def jobs() -> AsyncIterator[JobTable]:
    table = JobTable()
    yield table
    table.close()


@pytest.fixture
def bctx(workspace: Path, jobs: JobTable) -> ToolContext:
    # outside the sandbox (under the reaper): these test the table's process groups;
    # tests/sandbox/test_background_sandbox.py runs them inside
    return ToolContext(workspace=workspace, jobs=jobs, max_output_chars=4_000, grant="host")


async def start(ctx: ToolContext, command: str) -> ToolResult:
    result = await call(RunCommand(), ctx, command=command, background=True)
    assert not result.is_error and result.metadata["id"].startswith("bg"), result.output
    return result


async def until_done(ctx: ToolContext, job_id: str) -> list[str]:
    outputs = []
    for _ in range(100_000):  # bounded; each call waits for news or returns what came
        result = await call(CommandOutput(), ctx, id=job_id, wait=5)
        outputs.append(result.output)
        if not result.metadata["running"]:
            return outputs
    raise AssertionError("the command did not end")


async def test_returns_at_once_then_new_output_each_call(bctx: ToolContext) -> None:
    started = await start(bctx, "echo first; read _ < /dev/null; sleep 0.3; echo second >&2")
    job_id = started.metadata["id"]
    assert "Started in the background as bg1" in started.output
    outputs = await until_done(bctx, job_id)
    joined = "\n".join(outputs)
    assert joined.count("first") == 1 and joined.count("second") == 1  # each line once
    assert "exited with code 0" in outputs[-1]
    again = await call(CommandOutput(), bctx, id=job_id)
    assert "(no new output)" in again.output and "exited with code 0" in again.output


async def test_the_exit_code_is_reported(bctx: ToolContext) -> None:
    job_id = (await start(bctx, "echo oops; exit 3")).metadata["id"]
    outputs = await until_done(bctx, job_id)
    assert "exited with code 3" in outputs[-1]


async def test_stop_ends_the_whole_tree(bctx: ToolContext) -> None:
    result = await start(bctx, "sleep 600 & sleep 601 & python3 -c 'import time; "
                               "time.sleep(602)'; wait")
    pid = result.metadata["pid"]
    for _ in range(200):  # until the three children exist
        if len(group_members(pid)) >= 4:
            break
        time.sleep(0.02)
    members = group_members(pid)
    assert len(members) >= 4
    stopped = await call(StopCommand(), bctx, id=result.metadata["id"])
    assert "stopped after" in stopped.output
    assert group_members(pid) == [] and not any(alive(p) for p in members)


@pytest.mark.slow
async def test_a_command_ignoring_sigterm_is_killed(bctx: ToolContext) -> None:
    result = await start(bctx, "trap '' TERM; echo ready; sleep 600 & wait")
    pid = result.metadata["pid"]
    await call(CommandOutput(), bctx, id=result.metadata["id"], wait=5)
    await call(StopCommand(), bctx, id=result.metadata["id"])
    assert group_members(pid) == []


async def test_output_is_bounded_however_much_it_prints(bctx: ToolContext,
                                                        jobs: JobTable) -> None:
    job_id = (await start(bctx, "head -c 50000000 /dev/zero | tr '\\0' 'a'; echo; echo END"
                          )).metadata["id"]
    outputs = await until_done(bctx, job_id)
    assert all(len(o) < 6_000 for o in outputs)
    assert "END" in outputs[-1] or any("END" in o for o in outputs)
    assert any("bytes (" in o and "cut from the middle" in o for o in outputs)
    job = jobs.get(job_id)
    assert job is not None and job.total == 50_000_000 + 5
    assert len(job.fresh.head) + len(job.fresh.tail) <= 4 * 4_000


async def test_unknown_id_and_no_table(bctx: ToolContext, workspace: Path) -> None:
    with pytest.raises(ToolFailed, match="no background command 'bg9'"):
        await call(CommandOutput(), bctx, id="bg9")
    with pytest.raises(ToolFailed, match="not available"):
        await call(StopCommand(), ToolContext(workspace=workspace), id="bg1")


async def test_closing_the_table_stops_everything(workspace: Path) -> None:
    table = JobTable()
    ctx = ToolContext(workspace=workspace, jobs=table, grant="host")
    pids = [(await start(ctx, f"sleep {600 + i}")).metadata["pid"] for i in range(3)]
    assert all(group_members(pid) for pid in pids)
    table.close()
    assert all(group_members(pid) == [] for pid in pids)


def test_nothing_survives_the_death_of_the_owner(tmp_path: Path) -> None:
    """The owning process is SIGKILLed: no cleanup code runs, the kernel's
    parent-death signal makes the shell kill its group."""
    script = textwrap.dedent("""
        import asyncio, math, os, signal, sys
        from pathlib import Path
        from swebash_py.sandbox.policy import SandboxPolicy
        from swebash_py.sandbox.runner import DIRECT, ExecRequest
        from swebash_py.tools.background import JobTable, WRAPPER
        async def main():
            table = JobTable()
            argv = ["/bin/sh", "-c", WRAPPER, "bg", "sleep 600 & sleep 601"]
            request = ExecRequest(argv, SandboxPolicy("off", Path.cwd()), math.inf,
                                  head=100, tail=100, plain_env=dict(os.environ))
            job = await table.start(DIRECT, request, "x")
            print(job.pid, flush=True)
            await asyncio.sleep(0.5)
            os.kill(os.getpid(), signal.SIGKILL)
        asyncio.run(main())
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=30, cwd=tmp_path)
    pgid = int(proc.stdout.split()[0])
    for _ in range(250):
        if not group_members(pgid):
            break
        time.sleep(0.02)
    assert group_members(pgid) == []


def test_the_twin_without_the_death_signal_the_group_survives(tmp_path: Path) -> None:
    """Proof the test above can fail: a runner that starts the process plainly
    (no parent-death hook, no reaper, no cgroup: what the seam's runner adds),
    and the processes outlive their killed owner (then the test cleans them up)."""
    script = textwrap.dedent("""
        import asyncio, math, os, signal
        from pathlib import Path
        from swebash_py.sandbox.policy import SandboxPolicy
        from swebash_py.sandbox.runner import ExecRequest
        from swebash_py.tools import background
        class Plain:
            writes_land = True
            async def start(self, request):
                return await asyncio.create_subprocess_exec(
                    *request.argv, env=dict(request.plain_env),
                    stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        async def main():
            table = background.JobTable()
            argv = ["/bin/sh", "-c", background.WRAPPER, "bg", "sleep 600"]
            request = ExecRequest(argv, SandboxPolicy("off", Path.cwd()), math.inf,
                                  head=100, tail=100, plain_env=dict(os.environ))
            job = await table.start(Plain(), request, "x")
            print(job.pid, flush=True)
            await asyncio.sleep(0.3)
            os.kill(os.getpid(), signal.SIGKILL)
        asyncio.run(main())
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=30, cwd=tmp_path)
    pgid = int(proc.stdout.split()[0])
    try:
        time.sleep(0.5)
        assert group_members(pgid) != []
    finally:
        os.killpg(pgid, 9)
