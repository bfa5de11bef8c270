"""One executor pipeline for previewed and direct calls (issue #28, item 3).

The hooks, the question, the audit record, progress and the result happen in
one place (``ToolExecutor._carry_out``); a preview is only another runner
(``preview.run.PreviewRunner``) plus a settle step. Driven with the real
approver, the real run_command, real bwrap and real overlays; the user's
answers are scripted.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from swebash_py.agent.executor import ToolExecutor
from swebash_py.approvals.approver import Answer, PolicyApprover
from swebash_py.approvals.audit import CallRecord
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.rules import RuleSet
from swebash_py.engine.messages import ToolResultBlock, ToolUseBlock
from swebash_py.events import ApprovalEvent, Notice, ToolProgress, TurnEvent
from swebash_py.tools.base import ToolContext, ToolResult
from swebash_py.tools.command import RunCommand
from swebash_py.tools.registry import ToolRegistry
from tests.preview.conftest import needs_overlay

pytestmark = needs_overlay
COMMAND = "echo made > made.txt"


class Scene:
    """One executor over one workspace, with everything it tells recorded."""

    def __init__(self, workspace: Path, preview: str, *, hook_says: str | None = None) -> None:
        self.workspace = workspace
        self.events: list[TurnEvent] = []
        self.records: list[CallRecord] = []
        self.questions: list[PendingCall] = []
        self.after: list[ToolResult] = []
        self.hook_says = hook_says
        approver = PolicyApprover("strict" if preview == "after" else "ask", RuleSet(),
                                  workspace, self.asker, preview_mode=lambda _p, _m: preview)
        self.executor = ToolExecutor(
            ToolRegistry([RunCommand()]), approver, ToolContext(workspace=workspace),
            self.events.append, itertools.count().__next__, pre_hook=self.pre_hook,
            post_hook=self.post_hook, audit=self.records.append)

    async def asker(self, pending: PendingCall, verdict: Verdict,
                    rule: list[str] | None) -> Answer:
        self.questions.append(pending)
        return Answer("yes")

    async def pre_hook(self, pending: PendingCall) -> str | None:
        return self.hook_says

    async def post_hook(self, pending: PendingCall, result: ToolResult) -> None:
        self.after.append(result)

    async def run(self, command: str = COMMAND) -> ToolResultBlock:
        self.executor.submit(ToolUseBlock("c1", "run_command", json.dumps({"command": command})))
        (block,) = await self.executor.results()
        return block

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def test_a_hook_refuses_a_previewed_call_before_its_preview_runs(workspace: Path) -> None:
    scene = Scene(workspace, "first", hook_says="not today")
    block = await scene.run()
    assert block.is_error and "denied by a hook: not today" in block.content
    assert not (workspace / "made.txt").exists() and scene.questions == []
    assert not scene.of(ToolProgress) or all(e.status != "running" for e in scene.of(ToolProgress))
    ((approval,),) = [scene.of(ApprovalEvent)]
    assert (approval.decision, approval.by) == ("deny", "hook")
    ((record,),) = [scene.records]
    assert (record.decision, record.allowed) == ("hook", False)
    assert scene.after == []  # nothing ran: no post-hook


async def test_twin_without_the_hook_the_call_is_previewed_asked_and_applied(
        workspace: Path) -> None:
    scene = Scene(workspace, "first")
    block = await scene.run()
    assert not block.is_error and "changes applied" in block.content
    assert (workspace / "made.txt").read_text() == "made\n"
    ((question,),) = [scene.questions]
    assert question.preview.changes and "made.txt" in question.preview.changes
    ((approval,),) = [scene.of(ApprovalEvent)]
    assert (approval.decision, approval.by) == ("allow", "user")
    ((record,),) = [scene.records]
    assert (record.decision, record.allowed, record.exit_code) == ("user-once", True, 0)
    assert record.duration_ms is not None  # the one pipeline times every run it records
    assert len(scene.after) == 1


@pytest.mark.parametrize("preview", ["first", ""])
async def test_previewed_and_direct_calls_end_the_same_way(workspace: Path,
                                                           preview: str) -> None:
    """The same call, asked about before its run or after its preview: one
    question, one "running", one approval event, one audit row, one post-hook."""
    scene = Scene(workspace, preview)
    block = await scene.run()
    assert not block.is_error and (workspace / "made.txt").read_text() == "made\n"
    assert len(scene.questions) == 1
    assert bool(scene.questions[0].preview.changes) is (preview == "first")
    assert [e.status for e in scene.of(ToolProgress)].count("running") == 1
    assert [(e.decision, e.by) for e in scene.of(ApprovalEvent)] == [("allow", "user")]
    assert [(r.decision, r.allowed) for r in scene.records] == [("user-once", True)]
    assert len(scene.after) == 1 and "exit code 0" in scene.after[0].output


@pytest.fixture
def unpreviewable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace an overlay cannot hold (a comma in its path): its
    previews are unavailable, the ordinary sandbox still runs there."""
    ws = tmp_path / "ws,1"
    ws.mkdir()
    monkeypatch.chdir(ws)
    return ws.resolve()


async def test_strict_yes_then_no_overlay_runs_as_answered(unpreviewable: Path) -> None:
    """Under strict the question comes first and the preview follows; when no
    overlay can be set up the user's yes stands (it used to turn into a denial
    that read "denied: allowed once")."""
    scene = Scene(unpreviewable, "after")
    block = await scene.run()
    assert not block.is_error and (unpreviewable / "made.txt").read_text() == "made\n"
    assert len(scene.questions) == 1
    assert any("no preview for this command" in n.message for n in scene.of(Notice))
    assert [(r.decision, r.allowed) for r in scene.records] == [("user-once", True)]


async def test_twin_strict_with_an_overlay_asks_again_about_the_changes(
        workspace: Path) -> None:
    scene = Scene(workspace, "after")
    block = await scene.run()
    assert not block.is_error and (workspace / "made.txt").read_text() == "made\n"
    assert [bool(q.preview.changes) for q in scene.questions] == [False, True]
    assert not any("no preview" in n.message for n in scene.of(Notice))


async def test_preview_first_without_an_overlay_asks_the_ordinary_question(
        unpreviewable: Path) -> None:
    scene = Scene(unpreviewable, "first")
    block = await scene.run()
    assert not block.is_error and (unpreviewable / "made.txt").read_text() == "made\n"
    ((question,),) = [scene.questions]
    assert not question.preview.changes  # asked before the run, as without previews
    assert [(r.decision, r.allowed) for r in scene.records] == [("user-once", True)]
