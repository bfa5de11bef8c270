"""The approver the executor uses: the policy decides, the user is asked.

``check`` applies the mode, the configured and remembered rules (see
``policy.decide``). ``ask`` puts the question through an injected ``Asker``
(the terminal, the REPL, or none at all) and turns the answer into a
verdict; "always" stores a narrow rule for this workspace. The policy (with
its shell parser), the rules, the verdicts and the sandbox grant are imported
at the first call judged: an answer that calls no tool needs none of them
(with no rules configured the approver is made without them too).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from swebash_py.approvals import remembered
from swebash_py.errors import StorageError

if TYPE_CHECKING:
    from swebash_py.approvals.decision import Judgement, PendingCall, Verdict
    from swebash_py.approvals.rules import RuleSet

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """What the user said: yes, always, no, or an instruction instead."""

    kind: Literal["yes", "always", "no", "instruction"]
    text: str = ""


Asker: TypeAlias = "Callable[[PendingCall, Verdict, list[str] | None], Awaitable[Answer]]"


def parse_answer(line: str) -> Answer:
    """The contract's answers: y/yes, a/always, n/no/empty, anything else."""
    word = line.strip()
    lowered = word.lower()
    if lowered in ("y", "yes"):
        return Answer("yes")
    if lowered in ("a", "always"):
        return Answer("always")
    if lowered in ("", "n", "no"):
        return Answer("no")
    return Answer("instruction", word)


class PolicyApprover:
    """Mode + rules decide; questions go to ``asker`` (None: no terminal).

    ``mode_fixed_by`` names what fixed the mode (a managed policy), when
    ``--yes`` cannot change it. ``rules`` and ``host_allow`` None: none (the
    empty rule set is made when a call is first judged)."""

    def __init__(self, mode: str, rules: RuleSet | None, workspace: Path,
                 asker: Asker | None, *,
                 sandboxed: Callable[[], bool] = lambda: True,
                 host_allow: RuleSet | None = None,
                 preview_mode: Callable[[PendingCall, str], str] = lambda _p, _m: "",
                 mode_fixed_by: str = "") -> None:
        self.mode = mode
        self.mode_fixed_by = mode_fixed_by
        self.workspace = workspace
        self._configured_rules = rules
        self._asker = asker
        self._sandboxed = sandboxed
        self._host_rules = host_allow
        self._preview_mode = preview_mode

    @property
    def can_ask(self) -> bool:
        """Whether anyone can answer a question (the system prompt says so)."""
        return self._asker is not None

    @property
    def _configured(self) -> RuleSet:
        return _or_empty(self._configured_rules)

    @property
    def _host(self) -> RuleSet:
        return _or_empty(self._host_rules)

    @property
    def rules(self) -> RuleSet:
        return self._configured.with_allow(remembered.load(self.workspace), remembered=True)

    def check(self, pending: PendingCall) -> Judgement:
        from swebash_py.approvals.decision import ExecutionPlan, Judgement, Verdict

        try:
            return self._check(pending)
        except Exception as exc:  # judging fails closed: ask (deny with no terminal)
            logger.warning("judging %s failed: %r", pending.tool.name, exc)
            return Judgement(Verdict("ask", "mode", f"could not judge this call "
                                                    f"({type(exc).__name__}: {exc}); asking "
                                                    "instead"), ExecutionPlan())

    def _check(self, pending: PendingCall) -> Judgement:
        from swebash_py.approvals import policy
        from swebash_py.approvals.audit import label_for
        from swebash_py.approvals.decision import Judgement
        from swebash_py.approvals.grant import sandbox_decision

        args = pending.args.to_dict()
        traits = pending.tool.traits()
        sandboxed = traits.command_arg is None or self._sandboxed()
        judged = policy.judge(traits, args, pending.preview, self.mode, self.rules,
                              self.workspace, sandboxed=sandboxed)
        # -- sandbox: judgement → grant (the one place; see approvals/grant.py) --
        analysis = (policy.command_analysis(str(args.get(traits.command_arg, "")))
                    if traits.command_arg is not None else None)
        judged = sandbox_decision(traits, args, analysis, judged, self._host, self.workspace,
                                  pending.preview)
        result = replace(judged.verdict, warnings=list(judged.verdict.warnings))
        plan = judged.plan
        result.label = label_for(result.action, result.by, self.mode)
        if result.action == "allow" and result.by == "rule":
            configured_only = policy.decide(traits, args, pending.preview, self.mode,
                                            self._configured, self.workspace,
                                            sandboxed=sandboxed)
            if not (configured_only.action == "allow" and configured_only.by == "rule"):
                result.label = "user-always"  # a rule the user's "always" answer made
        # a question: a preview first? Not for a rule's question (deny rules that
        # cannot see through `eval "$X"`): that one is asked before anything runs
        if result.action == "ask" and plan.grant == "write" and result.by != "rule":
            plan = replace(plan, preview=self._preview_of(pending))
        elif result.action == "allow" and plan.partly_listed and plan.grant == "read":
            return self._as_preview(pending, Judgement(result, plan))
        return Judgement(result, plan)

    def _as_preview(self, pending: PendingCall, judged: Judgement) -> Judgement:
        """A command rules admitted only in part, the read-only list the rest: the
        list's word never grants a write. Where previews work it runs as one (a
        preview that changes nothing asks nothing; one that does asks), else it
        keeps its read-only grant."""
        from swebash_py.approvals.decision import Judgement

        preview = self._preview_of(pending)
        if not preview:
            return judged
        return Judgement(replace(judged.verdict, action="ask"),
                         replace(judged.plan, preview=preview, grant="write"))

    def _preview_of(self, pending: PendingCall) -> Literal["", "first", "after"]:
        """The preview mode for a call that would ask (``preview.policy``)."""
        mode = self._preview_mode(pending, self.mode)
        return "first" if mode == "first" else "after" if mode == "after" else ""

    async def ask(self, pending: PendingCall, judged: Judgement) -> Verdict:
        from swebash_py.approvals.decision import Verdict

        try:
            return await self._ask(pending, judged)
        except Exception as exc:  # fails closed
            logger.warning("asking about %s failed: %r", pending.tool.name, exc)
            return Verdict("deny", "mode", f"could not ask about this call "
                                           f"({type(exc).__name__}: {exc})")

    async def _ask(self, pending: PendingCall, judged: Judgement) -> Verdict:
        from swebash_py.approvals import policy
        from swebash_py.approvals.decision import Verdict
        from swebash_py.approvals.grant import is_escalation

        verdict = judged.verdict
        escalation = is_escalation(pending.tool.traits(), pending.args.to_dict())
        if self._asker is None:
            if escalation:
                return Verdict("deny", "no-terminal", "running a command outside the sandbox "
                               "needs the user's answer and there is no terminal to ask on "
                               "(--yes does not answer it; [sandbox] host_allow can)",
                               label="denied")
            return Verdict("deny", "no-terminal", self._no_terminal_reason(pending, judged),
                           label="denied")
        if escalation:
            answer = await self._asker(pending, verdict, None)
            if answer.kind in ("yes", "always"):
                return Verdict("allow", "user", "allowed once, outside the sandbox",
                               label="user-once")
            if answer.kind == "instruction":
                return Verdict("deny", "user", f"the user said instead: {answer.text}",
                               instruction=answer.text, label="denied")
            return Verdict("deny", "user", "the user said no", label="denied")
        rule = policy.suggest_rule(pending.tool.traits(),
                                   pending.args.to_dict(),
                                   pending.preview, self.workspace)
        answer = await self._asker(pending, verdict, rule)
        if answer.kind == "yes":
            return Verdict("allow", "user", "allowed once", label="user-once")
        if answer.kind == "always":
            if not rule:
                return Verdict("allow", "user", "allowed once (no rule can safely cover it)",
                               label="user-once")
            try:
                for each in rule:
                    remembered.add(self.workspace, each)
            except StorageError as exc:  # a broken approvals.json is never overwritten
                return Verdict("allow", "user", f"allowed once; not remembered: {exc}",
                               label="user-once")
            return Verdict("allow", "user", f"allowed; remembered {', '.join(rule)}",
                           label="user-always")
        if answer.kind == "instruction":
            return Verdict("deny", "user", f"the user said instead: {answer.text}",
                           instruction=answer.text, label="denied")
        return Verdict("deny", "user", "the user said no", label="denied")

    def _no_terminal_reason(self, pending: PendingCall, judged: Judgement) -> str:
        verdict = judged.verdict
        if pending.preview.must_ask:
            return (f"{pending.preview.must_ask}: that always needs a question, and there is "
                    "no terminal to ask on (--yes does not answer it)")
        if judged.plan.partly_listed:  # rules for the rest, or --yes, would let it write
            return (f"{verdict.reason}: its changes need the user's answer and there is no "
                    "terminal to ask on (rerun with --yes, or add allow rules for all of it)")
        if verdict.by == "rule" or self.mode == "yolo":  # --yes would not answer it either
            return (f"{verdict.reason}: that needs a question, and there is no terminal to "
                    "ask on (--yes does not answer it)")
        if self.mode_fixed_by:
            return (f"needs approval and there is no terminal to ask on; the approval mode is "
                    f"fixed to {self.mode} by the {self.mode_fixed_by} (--yes does not change "
                    "it)")
        from swebash_py.approvals import policy

        rule = policy.suggest_rule(pending.tool.traits(),
                                   pending.args.to_dict(),
                                   pending.preview, self.workspace)
        usable = rule if self.mode in ("ask", "auto-edit") else None  # strict ignores rules
        hint = f", or add an allow rule like {', '.join(usable)}" if usable else ""
        return f"needs approval and there is no terminal to ask on: rerun with --yes{hint}"


def _or_empty(rules: RuleSet | None) -> RuleSet:
    """``rules``, or the empty set (the rule parser is imported only then)."""
    if rules is not None:
        return rules
    from swebash_py.approvals.rules import RuleSet

    return RuleSet()
