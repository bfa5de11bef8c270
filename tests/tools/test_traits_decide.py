"""Behaviour by trait (#28): the sandbox grant, an escalation, ``host_allow`` and
previews follow a tool's traits (``command_arg``, ``escalate_arg``, ``previews``),
so a tool renamed or added with the same traits gets the same treatment. Twins:
the same call without the trait gets none of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swebash_py.approvals import policy
from swebash_py.approvals.decision import ExecutionPlan, Judgement, PendingCall, Verdict
from swebash_py.approvals.grant import ESCALATE_REASON, sandbox_decision
from swebash_py.approvals.policy import command_analysis
from swebash_py.approvals.rules import RuleSet
from swebash_py.config.settings import Settings
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.preview.policy import preview_mode
from swebash_py.tools.base import Preview, ToolContext, ToolTraits
from swebash_py.tools.command import RunCommand
from swebash_py.tools.registry import builtin_traits
from tests.preview.conftest import needs_overlay

SHELL = ToolTraits("shell", "execute", command_arg="cmd", escalate_arg="outside")
ASKED = Judgement(Verdict("ask", "mode", "asks"), ExecutionPlan())


def decide(traits: ToolTraits, args: dict[str, Any], host: RuleSet | None = None,
           ) -> tuple[str, str, str]:
    analysis = command_analysis(str(args.get(traits.command_arg or "", "")))
    verdict, plan = sandbox_decision(traits, args, analysis, ASKED, host or RuleSet(),
                                     Path.cwd(), Preview("x"))
    return verdict.action, verdict.reason, plan.grant


def test_a_tool_with_an_escalate_arg_escalates_by_it() -> None:
    assert decide(SHELL, {"cmd": "ps aux", "outside": True}) == ("ask", ESCALATE_REASON, "host")


def test_twin_without_the_trait_the_same_argument_is_just_an_argument() -> None:
    plain = ToolTraits("shell", "execute", command_arg="cmd")
    assert decide(plain, {"cmd": "ps aux", "outside": True}) == ("ask", "asks", "write")
    assert decide(SHELL, {"cmd": "ps aux", "outside": False}) == ("ask", "asks", "write")


def test_host_allow_answers_for_the_tool_that_runs_commands() -> None:
    host = RuleSet.from_lists(["run_command(systemctl status *)"])
    run = builtin_traits()["run_command"]
    action, _reason, grant = decide(run, {"command": "systemctl status nginx"}, host)
    assert (action, grant) == ("allow", "host")


def test_twin_a_tool_without_a_command_arg_is_not_sandbox_judged() -> None:
    host = RuleSet.from_lists(["run_command(systemctl status *)"])
    fetch = builtin_traits()["web_fetch"]
    assert decide(fetch, {"command": "systemctl status nginx", "escalate": True}, host) == (
        "ask", "asks", "write")


class Shell(RunCommand):
    name = "shell"  # the same tool under another name


class NoPreviews(RunCommand):
    previews = False


def _mode(tool: Any) -> str:
    args = tool.Args.parse({"command": "make"})
    pending = PendingCall(ToolUseBlock("c1", tool.name, "{}"), tool, args,
                          tool.preview(args, ToolContext(workspace=Path.cwd())))
    return preview_mode(pending, "ask", Settings())


@needs_overlay
def test_a_renamed_command_tool_still_previews() -> None:
    assert _mode(Shell()) == "first"


def test_twin_without_the_previews_trait_it_asks_as_before() -> None:
    assert _mode(NoPreviews()) == ""


def test_the_command_in_a_command_arg_is_judged_whatever_its_name() -> None:
    """``ls`` in ``cmd`` is what the read-only list allows (inside a sandbox)."""
    verdict, plan = policy.judge(SHELL, {"cmd": "ls"}, Preview("x"), "ask", RuleSet(),
                                 Path.cwd())
    assert (verdict.action, plan.read_only_list) == ("allow", True)
    assert policy.suggest_rule(SHELL, {"cmd": "make test"}, Preview("x"), Path.cwd()) == [
        "shell(make test:*)"]


def test_twin_without_a_command_arg_nothing_is_read_as_a_command() -> None:
    plain = ToolTraits("shell", "execute")
    verdict, plan = policy.judge(plain, {"cmd": "ls"}, Preview("x"), "ask", RuleSet(),
                                 Path.cwd())
    assert verdict.action == "ask" and not plan.read_only_list
    assert policy.suggest_rule(plain, {"cmd": "make test"}, Preview("x"), Path.cwd()) == [
        "shell"]
