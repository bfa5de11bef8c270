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

from pathlib import Path
from typing import TYPE_CHECKING, Any

from swebash_py.approvals.decision import Decision
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


def grant_of(decision: Decision) -> Grant:
    """read for what the built-in read-only list allowed (alone or in part), write
    for everything else allowed."""
    if decision.action == "allow" and (decision.read_only_list or decision.partly_listed):
        return "read"
    return "write"


def host_may_answer(decision: Decision, preview: Preview) -> bool:
    """True when ``host_allow`` may stand in for this decision: an allow, or
    the approval mode's own question (not a deny rule's, not a sensitive or
    must-ask path's)."""
    if decision.action == "allow":
        return True
    return decision.by == "mode" and not (preview.sensitive or preview.must_ask
                                          or preview.protected)


def sandbox_decision(traits: ToolTraits, args: dict[str, Any], analysis: Any,
                     decision: Decision, host: RuleSet, workspace: Path,
                     preview: Preview) -> tuple[Decision, Grant]:
    """Adjust the policy's decision for escalation and ``host_allow`` (a tool that
    runs a command: its ``command_arg`` trait)."""
    if traits.command_arg is None or decision.action == "deny":
        return decision, grant_of(decision)
    if is_escalation(traits, args):
        return Decision("ask", "mode", ESCALATE_REASON,
                        [*decision.warnings, "runs outside the sandbox"]), "host"
    if analysis is not None and host.allow and host_may_answer(decision, preview) and host.allowing(
            traits.name, [], analysis, workspace):
        return Decision("allow", "rule", "allowed by [sandbox] host_allow (runs outside the "
                        "sandbox)", decision.warnings), "host"
    return decision, grant_of(decision)
