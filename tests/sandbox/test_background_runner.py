"""A background command starts through the execution seam (``Runner.start``), the
runner a foreground command of the same call runs with: the same walls. Real bwrap;
effects checked on the host. The preview's runner refuses to start one (nothing
runs); the twin: the ordinary runner starts the same request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swebash_py.preview.run import BACKGROUND_REFUSED, PreviewRunner, PreviewUnavailable
from swebash_py.process.proc import ProcResult
from swebash_py.sandbox.runner import ExecRequest, SandboxRunner
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand
from swebash_py.tools.jobs import CommandOutput
from tests.agent.helpers import sent_results
from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.sandbox.conftest import needs_bwrap
from tests.tools.conftest import call

pytestmark = needs_bwrap


class Recording(SandboxRunner):
    """The ordinary runner, noting what it was asked to start."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[ExecRequest] = []

    async def start(self, request: ExecRequest) -> asyncio.subprocess.Process:
        self.started.append(request)
        return await super().start(request)

    async def run(self, request: ExecRequest) -> ProcResult:
        raise AssertionError("a background command is started, not run")


@pytest.fixture
async def jobs() -> AsyncIterator[JobTable]:
    table = JobTable()
    yield table
    table.close()


async def _to_end(ctx: ToolContext, command: str) -> str:
    started = await call(RunCommand(), ctx, command=command, background=True)
    assert not started.is_error, started.output
    for _ in range(100):
        result = await call(CommandOutput(), ctx, id=started.metadata["id"], wait=5)
        if not result.metadata["running"]:
            return started.output
    raise AssertionError("the command did not end")


async def test_through_the_runner_it_cannot_write_outside(workspace: Path, tmp_path: Path,
                                                          jobs: JobTable) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    runner = Recording()
    ctx = ToolContext(workspace=workspace, jobs=jobs, runner=runner)  # the default grant
    await _to_end(ctx, f"touch {outside}/escaped")
    (request,) = runner.started
    assert request.policy.mode == "workspace-write" and request.policy.workspace == workspace
    assert not (outside / "escaped").exists()


async def test_twin_through_the_runner_it_writes_inside(workspace: Path,
                                                        jobs: JobTable) -> None:
    runner = Recording()
    ctx = ToolContext(workspace=workspace, jobs=jobs, runner=runner)
    said = await _to_end(ctx, "echo made > inside")
    assert len(runner.started) == 1 and "sandbox:" in said
    assert (workspace / "inside").read_text() == "made\n"


async def test_a_preview_runner_refuses_to_start_one(workspace: Path, jobs: JobTable) -> None:
    ctx = ToolContext(workspace=workspace, jobs=jobs, runner=PreviewRunner(64))
    with pytest.raises(PreviewUnavailable, match=BACKGROUND_REFUSED):
        await call(RunCommand(), ctx, command="touch inside", background=True)
    assert jobs.jobs() == [] and not (workspace / "inside").exists()


def _background_write(fake_provider: FakeProvider, workspace: Path, target: Path) -> str:
    """The model starts ``touch target`` in the background, then waits for it."""
    fake_provider.queue(
        Reply(tool_calls=[ToolCall("r1", "run_command", json.dumps(
            {"command": f"touch {target}", "background": True}))]),
        Reply(tool_calls=[ToolCall("o1", "command_output", json.dumps(
            {"id": "bg1", "wait": 10}))]),
        Reply(text="done"))
    result = run_ai("-y", *model_args(fake_provider), "start it", cwd=workspace)
    assert result.returncode == 0, result.stderr
    return str(sent_results(fake_provider.requests[1])[0][1])


def test_e2e_a_background_command_cannot_write_outside(fake_provider: FakeProvider,
                                                       workspace: Path,
                                                       tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    started = _background_write(fake_provider, workspace, outside / "escaped")
    assert "Started in the background as bg1" in started and "sandbox:" in started
    assert not (outside / "escaped").exists()


def test_e2e_twin_a_background_command_writes_inside(fake_provider: FakeProvider,
                                                     workspace: Path) -> None:
    _background_write(fake_provider, workspace, workspace / "inside")
    assert (workspace / "inside").exists()
