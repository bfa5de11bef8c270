"""A background command starts through the execution seam (``Runner.start``), the
runner a foreground command of the same call runs with: the same walls. Real bwrap;
effects checked on the host. The preview's runner refuses to start one (nothing
runs); the twin: the ordinary runner starts the same request. Through the executor,
a planned preview of one asks the question it replaced and starts it on yes (twin:
no starts nothing)."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swebash_py.agent.executor import ToolExecutor
from swebash_py.approvals.approver import Answer, PolicyApprover
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.rules import RuleSet
from swebash_py.engine.messages import ToolResultBlock, ToolUseBlock
from swebash_py.events import Notice, TurnEvent
from swebash_py.preview.run import BACKGROUND_REFUSED, PreviewRunner, PreviewUnavailable
from swebash_py.process.proc import ProcResult
from swebash_py.sandbox.runner import ExecRequest, SandboxRunner
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand
from swebash_py.tools.jobs import CommandOutput
from swebash_py.tools.registry import ToolRegistry
from tests.agent.helpers import sent_results
from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.preview.conftest import needs_overlay
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


async def _executor_run(workspace: Path, jobs: JobTable, preview: str, answer: str,
                        ) -> tuple[ToolResultBlock, list[TurnEvent], int]:
    """One background ``run_command`` through the real executor whose plan says
    ``preview`` (forced: the policy itself never previews a background command)."""
    events: list[TurnEvent] = []
    asked = 0

    async def asker(pending: PendingCall, verdict: Verdict, rule: list[str] | None) -> Answer:
        nonlocal asked
        asked += 1
        return Answer(answer)

    approver = PolicyApprover("ask", RuleSet(), workspace, asker,
                              preview_mode=lambda _p, _m: preview)
    executor = ToolExecutor(ToolRegistry([RunCommand()]), approver,
                            ToolContext(workspace=workspace, jobs=jobs), events.append,
                            itertools.count().__next__)
    executor.submit(ToolUseBlock("c1", "run_command", json.dumps(
        {"command": "echo made > made.txt", "background": True})))
    (block,) = await executor.results()
    return block, events, asked


@needs_overlay
async def test_a_planned_preview_of_a_background_command_asks_then_starts_it(
        workspace: Path, jobs: JobTable) -> None:
    """The preview's runner refuses: the question the preview replaced is asked
    (saying why, one line), and on yes the ordinary runner starts it."""
    block, events, asked = await _executor_run(workspace, jobs, "first", "yes")
    assert asked == 1 and "Started in the background as bg1" in block.content
    assert any(isinstance(e, Notice) and BACKGROUND_REFUSED in e.message for e in events)
    await jobs.wait_for_end(jobs.jobs()[0], 10)
    assert (workspace / "made.txt").read_text() == "made\n"


@needs_overlay
async def test_twin_the_same_question_answered_no_starts_nothing(workspace: Path,
                                                                jobs: JobTable) -> None:
    block, _events, asked = await _executor_run(workspace, jobs, "first", "no")
    assert asked == 1 and block.is_error and jobs.jobs() == []
    assert not (workspace / "made.txt").exists()
