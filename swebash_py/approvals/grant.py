"""Approval ↔ sandbox: the one place where a decision picks the sandbox.

* ``escalate: true`` always asks (after deny rules), with "outside the
  sandbox" in the question; ``--yes`` does not answer it and "always" does
  not make it standing.
* ``[sandbox] host_allow`` patterns (allow-rule syntax, matched whole) run
  outside without a question, but they only stand in for the approval
  mode's question: a question raised by a sensitive path, a deny rule, a
  tool's own must-ask or an unaccountable part is still asked.
* Otherwise: what ran only because the read-only command list allowed it gets
  the ``read`` grant; whatever a user, an allow rule or yolo allowed, ``write``.
  A command allow rules admit only in part (the rest only by the list, e.g.
  ``echo x | sort --outp=F`` under ``echo *``) gets ``read`` too: the list's
  judgment never grants a write. The approver runs it as a preview instead
  where previews work (a write shown and asked about first).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swebash_py.approvals.decision import ExecutionPlan, Judgement, Verdict
from swebash_py.approvals.rules import RuleSet

if TYPE_CHECKING:
    from swebash_py.sandbox.policy import Grant
    from swebash_py.tools.base import Preview, ToolTraits

READ_ONLY_COMMAND = "read-only command"  # policy.decide's reason for the built-in list
ESCALATE_REASON = "asks to run outside the sandbox"


def is_escalation(traits: ToolTraits, args: dict[str, Any]) -> bool:
    return traits.escalates(args)


def host_rules(patterns: list[str]) -> RuleSet:
    """``host_allow`` patterns as allow rules for each tool that runs a command
    (``run_command``: its ``command_arg`` trait)."""
    from swebash_py.tools.registry import builtin_traits

    runners = [t.name for t in builtin_traits().values() if t.command_arg is not None]
    return RuleSet.from_lists([f"{tool}({p})" for tool in runners for p in patterns])


def grant_of(judged: Judgement) -> Grant:
    """read for what the built-in read-only list allowed (alone or in part), write
    for everything else allowed."""
    verdict, plan = judged
    if verdict.action == "allow" and (plan.read_only_list or plan.partly_listed):
        return "read"
    return "write"


def host_may_answer(verdict: Verdict, preview: Preview) -> bool:
    """True when ``host_allow`` may stand in for this verdict: an allow, or
    the approval mode's own question (not a deny rule's, not a sensitive or
    must-ask path's)."""
    if verdict.action == "allow":
        return True
    return verdict.by == "mode" and not (preview.sensitive or preview.must_ask
                                         or preview.protected)


def sandbox_decision(traits: ToolTraits, args: dict[str, Any], analysis: Any,
                     judged: Judgement, host: RuleSet, workspace: Path,
                     preview: Preview) -> Judgement:
    """Adjust the policy's judgement for escalation and ``host_allow`` (a tool that
    runs a command: its ``command_arg`` trait); the plan gets its grant."""
    verdict = judged.verdict
    if traits.command_arg is None or verdict.action == "deny":
        return _granted(judged)
    if is_escalation(traits, args):
        return Judgement(Verdict("ask", "mode", ESCALATE_REASON,
                                 [*verdict.warnings, "runs outside the sandbox"]),
                         ExecutionPlan(grant="host"))
    if analysis is not None and host.allow and host_may_answer(verdict, preview) and host.allowing(
            traits.name, [], analysis, workspace):
        return Judgement(Verdict("allow", "rule", "allowed by [sandbox] host_allow (runs outside "
                                 "the sandbox)", verdict.warnings), ExecutionPlan(grant="host"))
    return _granted(judged)


def _granted(judged: Judgement) -> Judgement:
    return Judgement(judged.verdict, replace(judged.plan, grant=grant_of(judged)))
