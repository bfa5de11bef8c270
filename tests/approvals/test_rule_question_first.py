"""A question a deny rule raised because it could not see through the command
(``eval "$X"``) is asked before anything runs: never a preview first, which would
run the command unasked when it changes no file. Twin: the mode's own question
on an ordinary command still waits for its preview."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.approvals.approver import PolicyApprover
from swebash_py.approvals.decision import PendingCall
from swebash_py.approvals.rules import RuleSet, parse_rule
from swebash_py.config.settings import Settings
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.tools.base import Preview
from swebash_py.tools.registry import ToolRegistry, default_tools


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / "data"))


def _pending(command: str) -> PendingCall:
    tool = ToolRegistry(default_tools(Settings())).get("run_command")
    assert tool is not None
    args = tool.Args.parse({"command": command})
    return PendingCall(ToolUseBlock("c1", "run_command", "{}"), tool, args, Preview(command))


def _approver(tmp_path: Path) -> PolicyApprover:
    rules = RuleSet(deny=[parse_rule("run_command(psql:*)")])
    return PolicyApprover("ask", rules, tmp_path, None, preview_mode=lambda _p, _m: "first")


def test_a_command_the_deny_rules_cannot_check_is_asked_before_it_runs(tmp_path: Path) -> None:
    verdict, plan = _approver(tmp_path).check(_pending('eval "$X"'))
    assert verdict.action == "ask" and verdict.by == "rule"
    assert plan.preview != "first"


def test_twin_the_modes_own_question_still_previews_first(tmp_path: Path) -> None:
    verdict, plan = _approver(tmp_path).check(_pending("mkdir build1"))
    assert verdict.action == "ask" and verdict.by == "mode"
    assert plan.preview == "first"
