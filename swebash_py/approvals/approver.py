"""The approver the executor uses: the policy decides, the user is asked.

``check`` applies the mode, the configured and remembered rules (see
``policy.decide``). ``ask`` puts the question through an injected ``Asker``
(the terminal, the REPL, or none at all) and turns the answer into a
verdict; "always" stores a narrow rule for this workspace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from swebash_py.approvals import policy, remembered
from swebash_py.approvals.audit import label_for
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.rules import RuleSet


@dataclass(frozen=True)
class Answer:
    """What the user said: yes, always, no, or an instruction instead."""

    kind: Literal["yes", "always", "no", "instruction"]
    text: str = ""


Asker = Callable[[PendingCall, Verdict, list[str] | None], Awaitable[Answer]]


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
    """Mode + rules decide; questions go to ``asker`` (None: no terminal)."""

    def __init__(self, mode: str, rules: RuleSet, workspace: Path,
                 asker: Asker | None) -> None:
        self.mode = mode
        self.workspace = workspace
        self._configured = rules
        self._asker = asker

    @property
    def rules(self) -> RuleSet:
        return self._configured.with_allow(remembered.load(self.workspace))

    def check(self, pending: PendingCall) -> Verdict:
        decision = self._decide(pending, self.rules)
        decision.label = label_for(decision.action, decision.by, self.mode)
        if decision.action == "allow" and decision.by == "rule" and self._remembered_only(
                pending):
            decision.label = "user-always"  # a rule the user's "always" answer made
        return decision

    def _decide(self, pending: PendingCall, rules: RuleSet) -> Verdict:
        return policy.decide(pending.tool.traits(), pending.args.model_dump(exclude_none=True),
                             pending.preview, self.mode, rules, self.workspace)

    def _remembered_only(self, pending: PendingCall) -> bool:
        """True when the configured rules alone would not have allowed the call."""
        without = self._decide(pending, self._configured)
        return not (without.action == "allow" and without.by == "rule")

    async def ask(self, pending: PendingCall, verdict: Verdict) -> Verdict:
        if self._asker is None:
            return Verdict("deny", "no-terminal", self._no_terminal_reason(pending),
                           label="denied")
        rule = policy.suggest_rule(pending.tool.traits(),
                                   pending.args.model_dump(exclude_none=True),
                                   pending.preview, self.workspace)
        answer = await self._asker(pending, verdict, rule)
        if answer.kind == "yes":
            return Verdict("allow", "user", "allowed once", label="user-once")
        if answer.kind == "always":
            if not rule:
                return Verdict("allow", "user", "allowed once (no rule can safely cover it)",
                               label="user-once")
            for each in rule:
                remembered.add(self.workspace, each)
            return Verdict("allow", "user", f"allowed; remembered {', '.join(rule)}",
                           label="user-always")
        if answer.kind == "instruction":
            return Verdict("deny", "user", f"the user said instead: {answer.text}",
                           instruction=answer.text, label="denied")
        return Verdict("deny", "user", "the user said no", label="denied")

    def _no_terminal_reason(self, pending: PendingCall) -> str:
        if pending.preview.must_ask:
            return (f"{pending.preview.must_ask}: that always needs a question, and there is "
                    "no terminal to ask on (--yes does not answer it)")
        rule = policy.suggest_rule(pending.tool.traits(),
                                   pending.args.model_dump(exclude_none=True),
                                   pending.preview, self.workspace)
        hint = f", or add an allow rule like {', '.join(rule)}" if rule else ""
        return f"needs approval and there is no terminal to ask on: rerun with --yes{hint}"
