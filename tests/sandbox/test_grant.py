"""The approval decides the sandbox: read-only list → read-only, approved →
workspace-write, escalation and host_allow → outside (asked / not asked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swebash_py.approvals import remembered
from swebash_py.approvals.approver import Answer, PolicyApprover
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.grant import host_rules
from swebash_py.approvals.rules import RuleSet
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.sandbox.policy import effective_mode
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand


def pending(workspace: Path, command: str, **extra: Any) -> PendingCall:
    tool = RunCommand()
    args = tool.Args.parse({"command": command, **extra})
    preview = tool.preview(args, ToolContext(workspace=workspace))
    return PendingCall(ToolUseBlock("c1", "run_command", "{}"), tool, args, preview)


def approver(workspace: Path, mode: str = "ask", *, answer: str | None = None,
             allow: tuple[str, ...] = (), host: tuple[str, ...] = (),
             sandboxed: bool = True) -> PolicyApprover:
    async def asker(_p: PendingCall, _v: Verdict, _r: list[str] | None) -> Answer:
        assert answer is not None
        return Answer(answer)  # type: ignore[arg-type]
    return PolicyApprover(mode, RuleSet.from_lists(allow), workspace,
                          asker if answer is not None else None,
                          sandboxed=lambda: sandboxed, host_allow=host_rules(list(host)))


def test_read_only_list_runs_read_only_and_only_inside_a_sandbox(workspace: Path) -> None:
    verdict, plan = approver(workspace).check(pending(workspace, "ls -la"))
    assert (verdict.action, plan.grant) == ("allow", "read")
    unboxed = approver(workspace, sandboxed=False).check(pending(workspace, "ls -la"))
    assert unboxed.verdict.action == "ask"


def test_allow_rule_and_yolo_get_workspace_write(workspace: Path) -> None:
    by_rule = approver(workspace, allow=("run_command(make)",)).check(pending(workspace, "make"))
    assert (by_rule.verdict.action, by_rule.plan.grant) == ("allow", "write")
    whole = approver(workspace, allow=("run_command(make)", "run_command(ls *)")).check(
        pending(workspace, "make && ls -la"))
    assert (whole.verdict.action, whole.plan.grant) == ("allow", "write")  # rules admit every part
    yolo = approver(workspace, "yolo").check(pending(workspace, "ls"))
    assert (yolo.verdict.action, yolo.plan.grant) == ("allow", "write")


@pytest.mark.parametrize(("configured", "grant", "mode"), [
    ("auto", "read", "read-only"), ("auto", "write", "workspace-write"),
    ("auto", "host", "off"), ("read-only", "write", "read-only"),
    ("workspace-write", "read", "workspace-write"), ("off", "read", "off")])
def test_effective_mode(configured: str, grant: Any, mode: str) -> None:
    assert effective_mode(configured, grant) == mode


async def test_escalation_always_asks_even_in_yolo(workspace: Path) -> None:
    call = pending(workspace, "ss -ltn", escalate=True)
    judged = approver(workspace, "yolo").check(call)
    assert judged.verdict.action == "ask" and judged.plan.grant == "host"
    assert any("outside the sandbox" in w for w in judged.verdict.warnings)
    denied = await approver(workspace, "yolo").ask(call, judged)
    assert denied.action == "deny" and "no terminal" in denied.reason
    assert "--yes does not answer it" in denied.reason


async def test_escalation_always_is_not_standing(workspace: Path) -> None:
    call = pending(workspace, "ss -ltn", escalate=True)
    yes = approver(workspace, answer="always")
    judged = yes.check(call)
    verdict = await yes.ask(call, judged)
    assert (verdict.action, judged.plan.grant) == ("allow", "host")  # the answer keeps the plan
    assert remembered.load(workspace) == []
    assert yes.check(call).verdict.action == "ask"


def test_escalation_still_obeys_deny_rules(workspace: Path) -> None:
    denying = PolicyApprover("yolo", RuleSet.from_lists([], ["run_command(rm)"]), workspace,
                             None)
    assert denying.check(pending(workspace, "rm -rf x", escalate=True)).verdict.action == "deny"


def test_host_allow_runs_outside_without_a_question(workspace: Path) -> None:
    host = approver(workspace, host=("ss -ltn", "systemctl status:*"))
    for command in ("ss -ltn", "systemctl status nginx"):
        verdict, plan = host.check(pending(workspace, command))
        assert (verdict.action, plan.grant) == ("allow", "host")
    assert host.check(pending(workspace, "ss -ltn; rm -rf x")).plan.grant != "host"


def test_runtime_redirect_target_is_judged_not_crashed(workspace: Path) -> None:
    verdict = approver(workspace).check(pending(workspace, 'echo hello > "$HOME/out.txt"')).verdict
    assert verdict.action == "ask"
    assert any("known only at run time" in w for w in verdict.warnings)


def test_any_exception_while_judging_asks(workspace: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: Any, **_k: Any) -> Any:
        raise ValueError("embedded null byte")
    monkeypatch.setattr("swebash_py.approvals.policy.judge", boom)
    verdict = approver(workspace, "yolo").check(pending(workspace, "ls")).verdict
    assert verdict.action == "ask" and "could not judge" in verdict.reason


def test_host_allow_does_not_answer_a_sensitive_file_question(workspace: Path) -> None:
    host = approver(workspace, "yolo", host=("journalctl:*",))
    secret = host.check(pending(workspace, "journalctl --file ~/.ssh/id_rsa"))
    assert secret.verdict.action == "ask" and secret.plan.grant != "host"
    assert "sensitive" in secret.verdict.reason
    plain = host.check(pending(workspace, "journalctl -u nginx"))  # twin: the pattern matches
    assert (plain.verdict.action, plain.plan.grant) == ("allow", "host")


def test_host_allow_does_not_answer_a_deny_rule_question(workspace: Path) -> None:
    host = PolicyApprover("yolo", RuleSet.from_lists([], ["run_command(rm:*)"]), workspace,
                          None, host_allow=host_rules(["git:*"]))
    mention = host.check(pending(workspace, "git commit -m 'rm x'"))
    assert mention.verdict.action == "ask" and mention.plan.grant != "host"
    assert "deny rules" in mention.verdict.reason
    assert host.check(pending(workspace, "git status")).plan.grant == "host"  # twin


def test_host_allow_does_not_cover_unaccountable_parts(workspace: Path) -> None:
    host = approver(workspace, host=("echo:*", "bash:*"))
    verdict, plan = host.check(pending(workspace, "echo 'touch x' | bash"))
    assert verdict.action == "ask" and plan.grant != "host"


def test_a_command_rules_admit_only_in_part_never_gets_a_write(workspace: Path) -> None:
    """``make && ls`` under a ``make`` rule: ``ls`` is admitted only by the read-only
    list, so the whole runs read-only where no preview can run (it used to be
    granted workspace-write)."""
    part = approver(workspace, allow=("run_command(make)",)).check(
        pending(workspace, "make && ls"))
    assert (part.verdict.action, part.plan.grant) == ("allow", "read")
    assert part.plan.partly_listed
    misjudged = approver(workspace, allow=("run_command(echo *)",)).check(
        pending(workspace, "echo x | sort --outp=F"))  # the list no longer misjudges it
    assert (misjudged.verdict.action, misjudged.plan.grant) == ("ask", "write")


def test_where_previews_work_a_part_admitted_command_runs_as_one(workspace: Path) -> None:
    previewing = PolicyApprover("ask", RuleSet.from_lists(("run_command(touch:*)",)),
                                workspace, None, preview_mode=lambda _p, _m: "first")
    verdict, plan = previewing.check(pending(workspace, "touch F && ls"))
    assert (verdict.action, plan.preview, plan.grant) == ("ask", "first", "write")
    assert plan.partly_listed
    whole = previewing.check(pending(workspace, "touch F"))  # the twin: rules admit it all
    assert (whole.verdict.action, whole.plan.preview, whole.plan.grant) == ("allow", "", "write")
