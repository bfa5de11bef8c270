"""The seam between the executor and the approvals: one ``Decision`` type.

The executor asks ``check`` (fast, synchronous: may this call start now?)
as soon as a call's arguments are complete, and ``ask`` (slow: a question
to the user) only when ``check`` said so, once the reply finished streaming,
one call at a time in emission order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

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
class Decision:
    """What to do with one call, and who decided.

    ``action`` is allow, deny or ask; ``by`` says who decided; ``reason`` is
    shown to the user and, for denials, to the model (with the user's own
    instruction when they typed one); ``warnings`` are lines for the question.
    ``read_only_list`` is true when a command is allowed only because the
    built-in read-only command list covers it (no person, rule or yolo said
    so): a sandbox may then run it read-only. ``partly_listed``: a command some
    of whose parts allow rules admit and the rest only that list; it is never
    granted a write (a preview, else read-only: ``approvals.grant``).
    """

    action: Literal["allow", "deny", "ask"]
    by: DecidedBy = "mode"
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    instruction: str = ""  # what the user typed instead of yes/no, for the model
    label: str = ""  # the audit's decision label (see ``approvals.audit``), when known
    read_only_list: bool = False  # allowed only by the built-in read-only command list
    partly_listed: bool = False  # allowed partly by rules, the rest only by that list
    grant: Literal["read", "write", "host"] = "write"  # the sandbox it runs in (approvals.grant)
    preview: Literal["", "first", "after"] = ""  # run as a preview first (preview.policy)


Verdict = Decision  # the name the executor and the question UI use


class Approver(Protocol):
    mode: str  # the approval mode the audit labels with ("" when none applies)
    mode_fixed_by: str  # what fixed the mode so nobody can change it (a managed policy), or ""

    def check(self, pending: PendingCall) -> Verdict:
        """Decide without asking: allow, deny, or ask."""
        ...

    async def ask(self, pending: PendingCall, verdict: Verdict) -> Verdict:
        """Put the question to the user; returns allow or deny."""
        ...


class AllowAll:
    """Every call runs (tests, and ``yolo`` without rules)."""

    mode = ""
    mode_fixed_by = ""

    def check(self, pending: PendingCall) -> Verdict:
        return Verdict("allow", "mode", "allowed")

    async def ask(self, pending: PendingCall, verdict: Verdict) -> Verdict:
        return Verdict("allow", "mode", "allowed")
