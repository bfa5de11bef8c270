"""Background commands run under the same sandbox as foreground ones, with the
same grant; outside (``host``) they still die with the session and with ``ai``.
Real bwrap; effects checked on the host (files, host PIDs); twins outside."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext, ToolResult
from swebash_py.tools.command import RunCommand
from swebash_py.tools.jobs import CommandOutput, StopCommand
from tests.sandbox.conftest import host_pids, needs_bwrap, wait_until
from tests.tools.conftest import call

pytestmark = needs_bwrap
ESCAPE = "setsid sleep {} > /dev/null 2>&1 < /dev/null & sleep 1000"


@pytest.fixture
async def jobs() -> AsyncIterator[JobTable]:
    table = JobTable()
    yield table
    table.close()


def bctx(workspace: Path, jobs: JobTable, grant: str) -> ToolContext:
    return ToolContext(workspace=workspace, jobs=jobs, grant=grant)


async def run_to_end(ctx: ToolContext, command: str) -> tuple[ToolResult, str]:
    started = await call(RunCommand(), ctx, command=command, background=True)
    assert not started.is_error, started.output
    job_id, outputs = started.metadata["id"], []
    for _ in range(1000):
        result = await call(CommandOutput(), ctx, id=job_id, wait=5)
        outputs.append(result.output)
        if not result.metadata["running"]:
            return started, "\n".join(outputs)
    raise AssertionError("the command did not end")


@pytest.mark.parametrize("grant", ["read", "write", "host"])
async def test_writes_only_what_the_grant_allows(workspace: Path, tmp_path: Path,
                                                 jobs: JobTable, grant: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    started, _out = await run_to_end(bctx(workspace, jobs, grant),
                                     f"touch inside; touch {outside}/escaped")
    assert started.metadata["sandbox"] == {"read": "read-only", "write": "workspace-write",
                                           "host": "off"}[grant]
    assert ("sandbox:" in started.output) == (grant != "host")
    assert (workspace / "inside").exists() == (grant != "read")
    assert (outside / "escaped").exists() == (grant == "host")  # the twin: host writes


@pytest.mark.parametrize("grant", ["write", "host"])
async def test_sees_no_host_secrets(workspace: Path, jobs: JobTable, grant: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIDGET_API_KEY", "bg-env-secret-value-123")
    (workspace / ".env").write_text("DB=bg-file-secret-value-456\n")
    _started, out = await run_to_end(bctx(workspace, jobs, grant),
                                     "cat .env; cat /proc/1/environ | tr '\\0' '\\n'; env")
    leaked = "bg-env-secret-value-123" in out or "bg-file-secret-value-456" in out
    assert leaked == (grant == "host"), out  # the twin: outside, both are readable


@pytest.mark.parametrize("grant", ["write", "host"])
async def test_stop_command_ends_every_process(workspace: Path, jobs: JobTable,
                                               grant: str, reap: list[str]) -> None:
    marker = f"1100.{os.getpid()}{int(grant == 'host')}"
    reap.append(f"sleep {marker}")
    ctx = bctx(workspace, jobs, grant)
    started = await call(RunCommand(), ctx, command=ESCAPE.format(marker), background=True)
    assert wait_until(lambda: host_pids(f"sleep {marker}"), 30)
    await call(StopCommand(), ctx, id=started.metadata["id"])
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


@pytest.mark.parametrize("grant", ["write", "host"])
async def test_closing_the_session_ends_every_process(workspace: Path, grant: str,
                                                      reap: list[str]) -> None:
    marker = f"1101.{os.getpid()}{int(grant == 'host')}"
    reap.append(f"sleep {marker}")
    table = JobTable()
    await call(RunCommand(), bctx(workspace, table, grant), command=ESCAPE.format(marker),
               background=True)
    assert wait_until(lambda: host_pids(f"sleep {marker}"), 30)
    table.close()
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


KILLED_OWNER = textwrap.dedent("""
    import asyncio, os, signal, sys
    from pathlib import Path
    from swebash_py.tools.background import JobTable
    from swebash_py.tools.base import ToolContext
    from swebash_py.tools.command import RunCommand
    sys.path.insert(0, {root!r})
    from tests.sandbox.conftest import host_pids
    async def main():
        ctx = ToolContext(workspace=Path.cwd(), jobs=JobTable(), grant={grant!r})
        tool = RunCommand()
        await tool.run(tool.Args(command={command!r}, background=True), ctx)
        while not host_pids({marker!r}):
            await asyncio.sleep(0.02)
        os.kill(os.getpid(), signal.SIGKILL)
    asyncio.run(main())
""")


@pytest.mark.parametrize("grant", ["write", "host"])
def test_kill_9_of_the_owner_ends_every_process(workspace: Path, grant: str,
                                                reap: list[str]) -> None:
    """``ai`` is SIGKILLed (no cleanup runs): the pid namespace (inside) or the
    reaper (outside) takes the setsid'd child along."""
    marker = f"1102.{os.getpid()}{int(grant == 'host')}"
    reap.append(f"sleep {marker}")
    root = str(Path(__file__).resolve().parents[2])
    script = KILLED_OWNER.format(root=root, grant=grant, command=ESCAPE.format(marker),
                                 marker=f"sleep {marker}")
    proc = subprocess.run([sys.executable, "-c", script], cwd=workspace, timeout=60,
                          capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))
