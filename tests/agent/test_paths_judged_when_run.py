"""A file call is judged on what its path means when it runs, not when the model
emitted it: a directory swapped for a symlink to the outside (by an earlier call
of the same reply, or while the question is open) never lets a write out."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from swebash_py.approvals.approver import Answer, PolicyApprover
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.rules import RuleSet
from swebash_py.tools.edit import WriteFile
from swebash_py.tools.registry import ToolRegistry
from tests.agent.helpers import make_agent, run, sent_results
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def write(call_id: str, path: str, content: str = "x\n") -> ToolCall:
    return ToolCall(call_id, "write_file", json.dumps({"path": path, "content": content}))


def swap_for_link(directory: Path, target: Path) -> None:
    shutil.rmtree(directory)
    os.symlink(target, directory)


async def test_a_swap_while_the_question_is_open_is_caught(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "d").mkdir()
    questions: list[str] = []

    async def asker(pending: PendingCall, verdict: Verdict, rule: list[str] | None) -> Answer:
        questions.append(pending.call.id)
        swap_for_link(workspace / "d", outside)  # meanwhile, something swaps the directory
        return Answer("yes")

    approver = PolicyApprover("ask", RuleSet(), workspace, asker)
    fake_provider.queue(Reply(tool_calls=[write("w1", "d/f.txt")]), Reply(text="ok"))
    agent = make_agent(fake_provider, "openai", Journal(), approver=approver,
                       registry=ToolRegistry([WriteFile()]))
    await run(agent, "go")
    assert questions == ["w1"]
    assert not (outside / "f.txt").exists()
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert is_error and "not what was approved" in content


@pytest.mark.parametrize("target", ["outside", "inside"])
async def test_an_earlier_call_swapping_the_directory_is_seen(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path, target: str) -> None:
    """auto-edit writes inside the workspace unasked: the second write must be
    judged after the first call swapped d for a link (outside: no terminal, so
    denied; the twin with a link inside the workspace writes)."""
    elsewhere = tmp_path / "outside" if target == "outside" else workspace / "real"
    elsewhere.mkdir()
    (workspace / "d").mkdir()

    class Swapper(WriteFile):
        async def run(self, args, ctx):  # type: ignore[no-untyped-def]
            result = await super().run(args, ctx)
            swap_for_link(workspace / "d", elsewhere)
            return result

    class Registry(ToolRegistry):
        def get(self, name: str):  # type: ignore[no-untyped-def]
            return Swapper() if name == "swap_write" else super().get(name)

    approver = PolicyApprover("auto-edit", RuleSet(), workspace, None)
    first = ToolCall("w1", "swap_write", json.dumps({"path": "first.txt", "content": "1"}))
    fake_provider.queue(Reply(tool_calls=[first, write("w2", "d/f.txt")]), Reply(text="ok"))
    agent = make_agent(fake_provider, "openai", Journal(), approver=approver,
                       registry=Registry([WriteFile()]))
    await run(agent, "go")
    results = sent_results(fake_provider.requests[1])
    assert [r[0] for r in results] == ["w1", "w2"]
    if target == "outside":
        assert not (elsewhere / "f.txt").exists()
        assert results[1][2] and "no terminal" in results[1][1]
    else:
        assert (elsewhere / "f.txt").read_text() == "x\n" and not results[1][2]


async def test_an_edit_sees_the_file_a_write_before_it_made(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """One reply: write f.txt, then edit it. The edit's preview once ran when the
    call arrived, before the write: 'no such file'."""
    from swebash_py.approvals.decision import AllowAll
    from swebash_py.tools.edit import EditFile

    edit = ToolCall("e1", "edit_file", json.dumps({"path": "f.txt", "old_text": "alpha",
                                                    "new_text": "beta"}))
    fake_provider.queue(Reply(tool_calls=[write("w1", "f.txt", "alpha\n"), edit]), Reply(text="ok"))
    agent = make_agent(fake_provider, "openai", Journal(), approver=AllowAll(),
                       registry=ToolRegistry([WriteFile(), EditFile()]))
    await run(agent, "go")
    results = sent_results(fake_provider.requests[1])
    assert not results[1][2], results[1][1]
    assert (workspace / "f.txt").read_text() == "beta\n"
