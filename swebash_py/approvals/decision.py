"""The seam between the executor and the approvals: a verdict and a plan.

The executor asks ``check`` (fast, synchronous: may this call start now, and
how would it run?) as soon as a call's arguments are complete, and ``ask``
(slow: a question to the user) only when ``check`` said so, once the reply
finished streaming, one call at a time in emission order. ``check`` returns a
``Judgement``: the ``Verdict`` (allow / deny / ask, who decided, why) and the
``ExecutionPlan`` (the sandbox grant, a preview); ``ask`` answers the verdict
only, the plan stays what ``check`` made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from swebash_py.engine.messages import ToolUseBlock
from swebash_py.events import DecidedBy
from swebash_py.tools.base import Preview, Tool

if TYPE_CHECKING:
    from swebash_py.tools.args import ToolArgs


@dataclass
class PendingCall:
    """A validated call waiting for a decision."""

    call: ToolUseBlock
    tool: Tool[Any]
    args: ToolArgs
    preview: Preview


@dataclass
class Verdict:
    """Who decided what about one call, and why.

    ``action`` is allow, deny or ask; ``by`` says who decided; ``reason`` is
    shown to the user and, for denials, to the model (with the user's own
    instruction when they typed one); ``warnings`` are lines for the question;
    ``label`` is the audit's decision label (``approvals.audit``), when known.
    """

    action: Literal["allow", "deny", "ask"]
    by: DecidedBy = "mode"
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    instruction: str = ""  # what the user typed instead of yes/no, for the model
    label: str = ""  # the audit's decision label (see ``approvals.audit``), when known


@dataclass
class ExecutionPlan:
    """How an allowed call runs: the sandbox's grant and whether as a preview.

    ``read_only_list`` is true when a command is allowed only because the
    built-in read-only command list covers it (no person, rule or yolo said
    so): a sandbox may then run it read-only. ``partly_listed``: a command some
    of whose parts allow rules admit and the rest only that list; it is never
    granted a write (a preview, else read-only: ``approvals.grant``).
    ``preview``: "first" runs it as a preview instead of asking before the
    run (the question comes with its changes); "after" asks first, then the
    preview's changes are asked about too (``preview.policy``).
    """

    grant: Literal["read", "write", "host"] = "write"  # the sandbox it runs in (approvals.grant)
    preview: Literal["", "first", "after"] = ""  # run as a preview first (preview.policy)
    read_only_list: bool = False  # allowed only by the built-in read-only command list
    partly_listed: bool = False  # allowed partly by rules, the rest only by that list


class Judgement(NamedTuple):
    """What ``Approver.check`` returns: the verdict and the plan it implies."""

    verdict: Verdict
    plan: ExecutionPlan


class Approver(Protocol):
    mode: str  # the approval mode the audit labels with ("" when none applies)
    mode_fixed_by: str  # what fixed the mode so nobody can change it (a managed policy), or ""

    def check(self, pending: PendingCall) -> Judgement:
        """Decide without asking: allow, deny, or ask; and how it would run."""
        ...

    async def ask(self, pending: PendingCall, judged: Judgement) -> Verdict:
        """Put the question ``check`` raised to the user; returns allow or deny."""
        ...


class AllowAll:
    """Every call runs (tests, and ``yolo`` without rules)."""

    mode = ""
    mode_fixed_by = ""

    def check(self, pending: PendingCall) -> Judgement:
        return Judgement(Verdict("allow", "mode", "allowed"), ExecutionPlan())

    async def ask(self, pending: PendingCall, judged: Judgement) -> Verdict:
        return Verdict("allow", "mode", "allowed")
