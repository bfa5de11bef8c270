"""How a judged call runs: the runner its execution plan picks.

The executor judges a call (``approvals.decision.Judgement``), runs its hooks
and hands it here. A call whose plan has no preview runs its tool with the
ordinary runner behind it (``sandbox.runner.DIRECT``); a previewed one runs
the same tool with a ``preview.run.PreviewRunner`` behind it and is then
settled (``preview.flow.settle``: the question with the changes, apply or
discard). When no overlay can be set up for the command, the question the
preview replaced is asked now and it runs ordinarily. Either way the executor
gets a ``Ran`` -- the final verdict, the audit label, the result -- and records
it in its one place. Tools never choose a runner, and never import the preview.
"""

from __future__ import annotations

import asyncio
import dataclasses
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from swebash_py.approvals.audit import DecisionLabel, label_for
from swebash_py.approvals.decision import Approver, Judgement, PendingCall, Verdict
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.errors import ToolFailed
from swebash_py.events import ApprovalEvent, Notice, ToolProgress, TurnEvent
from swebash_py.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from swebash_py.preview.flow import JournalFactory
    from swebash_py.sandbox.runner import Runner

Emit = Callable[[TurnEvent], None]


@dataclasses.dataclass
class Ran:
    """How a judged call ended: its final verdict, the audit label, and the
    result (None: refused, it did not run); ``applied``: false when a preview's
    changes were discarded (the audit records no result then)."""

    verdict: Verdict
    label: DecisionLabel
    result: ToolResult | None
    applied: bool = True


class Execution:
    """Runs judged calls for one executor (one reply's calls)."""

    def __init__(self, context: ToolContext, approver: Approver, emit: Emit, *,
                 timeout: float, max_concurrency: int, debug: bool = False,
                 journal: JournalFactory | None = None) -> None:
        self._context = context
        self._approver = approver
        self._emit = emit
        self._timeout = timeout
        self._limit = asyncio.Semaphore(max_concurrency)
        self._debug = debug
        self._journal = journal  # a preview's apply records into it (undo)
        self.started: set[str] = set()  # the calls whose tool began to run

    async def run(self, pending: PendingCall, judged: Judgement) -> Ran:
        """Run an allowed call, or a previewed one (its verdict comes after)."""
        verdict, plan = judged
        if plan.preview and verdict.action != "deny":
            return await self._previewed(pending, judged)
        return Ran(verdict, self.label(verdict), await self.tool(pending, plan.grant))

    def approval(self, pending: PendingCall, verdict: Verdict) -> None:
        """Tell what was decided about the call (once per call)."""
        action: Literal["allow", "deny"] = "allow" if verdict.action == "allow" else "deny"
        self._emit(ApprovalEvent(pending.call.id, pending.call.name, action, verdict.by,
                                 verdict.reason))

    def label(self, verdict: Verdict) -> DecisionLabel:
        return label_for(verdict.action, verdict.by, self._approver.mode, verdict.label)

    async def _previewed(self, pending: PendingCall, judged: Judgement) -> Ran:
        """Run with a preview runner, then settle (ask about the changes, apply
        or discard); falls back to the ordinary question (one line saying why)
        when no overlay can be set up for this command."""
        from swebash_py.preview.flow import Settling, settle
        from swebash_py.preview.run import PreviewRunner
        from swebash_py.sandbox.runner import RunnerUnavailable

        runner = PreviewRunner(self._context.sandbox.preview_max_mb)
        try:
            result = await self.tool(pending, "write", runner)
        except RunnerUnavailable as exc:
            return await self._unpreviewed(pending, judged, str(exc))
        try:
            done = await settle(pending, judged, runner, result,
                                Settling(self._approver, self._emit, self._context,
                                         self._journal))
        except Exception as exc:  # a failed preview applies nothing and must not crash
            runner.discard()
            failed = Verdict("deny", "mode", f"the preview failed: {exc}")
            self.approval(pending, failed)
            return Ran(failed, "discarded", self.failed(pending.call, exc), applied=False)
        self.approval(pending, done.verdict)
        applied = done.verdict.action == "allow"
        return Ran(done.verdict, self.label(done.verdict) if applied else "discarded",
                   done.result, applied)

    async def _unpreviewed(self, pending: PendingCall, judged: Judgement, why: str) -> Ran:
        """No preview for this command: the question it replaced is asked now
        (a command the read-only list half-allowed runs read-only, unasked;
        under strict the user already said yes, and the preview only followed)."""
        note = f"no preview for this command: {why}"
        self._emit(Notice(note))
        verdict, plan = judged
        if plan.partly_listed:  # no question: it runs read-only (approvals.grant)
            verdict, plan = dataclasses.replace(verdict, action="allow"), dataclasses.replace(
                plan, preview="", grant="read")
        elif plan.preview == "first":
            noted = dataclasses.replace(verdict, warnings=[*verdict.warnings, note])
            verdict = await self._approver.ask(
                pending, Judgement(noted, dataclasses.replace(plan, preview="")))
        self.approval(pending, verdict)
        if verdict.action != "allow":
            return Ran(verdict, self.label(verdict), None)
        return Ran(verdict, self.label(verdict), await self.tool(pending, plan.grant))

    async def tool(self, pending: PendingCall, grant: str = "write",
                   runner: Runner | None = None) -> ToolResult:
        """Run the tool with ``runner`` behind its processes (None: the
        ordinary one), with progress and a timeout. ``RunnerUnavailable``
        (nothing ran) goes to the caller, which chose the runner; every other
        failure is an error result."""
        call = pending.call
        context = dataclasses.replace(self._context, progress=self._progress_sink(call),
                                      grant=grant, runner=runner)
        limit = self._limit if pending.tool.read_only else _NO_LIMIT
        async with limit:
            self.started.add(call.id)
            self._emit(ToolProgress(call.id, call.name, "running"))
            try:
                return await asyncio.wait_for(pending.tool.run(pending.args, context),
                                              self._timeout)
            except ToolFailed as exc:
                return ToolResult(str(exc), is_error=True)
            except TimeoutError:
                return ToolResult(f"{call.name} timed out after {self._timeout:.0f} s",
                                  is_error=True)
            except Exception as exc:
                if runner is not None and _unavailable(exc):
                    raise
                return self.failed(call, exc)

    def failed(self, call: ToolUseBlock, exc: Exception) -> ToolResult:
        detail = traceback.format_exc() if self._debug else ""
        return ToolResult(f"{call.name} failed: {type(exc).__name__}: {exc}\n{detail}"
                          .rstrip(), is_error=True)

    def _progress_sink(self, call: ToolUseBlock) -> Callable[[str], None]:
        def progress(text: str) -> None:
            self._emit(ToolProgress(call.id, call.name, "output", text))
        return progress


class _NoLimit:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


_NO_LIMIT = _NoLimit()


def _unavailable(exc: Exception) -> bool:
    """Whether the chosen runner could not run this call (nothing ran)."""
    from swebash_py.sandbox.runner import RunnerUnavailable  # loaded by whoever raised it

    return isinstance(exc, RunnerUnavailable)
