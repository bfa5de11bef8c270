"""A previewed call's settle step: show, ask once, apply or discard.

The executor runs a previewed call through its one pipeline like any other
call, with a ``PreviewRunner`` (``preview.run``) as the call's runner; then
``settle`` takes the ``Preview`` that runner holds. A preview that changed
nothing is the result (nothing asked); one past its bound is discarded; one
with changes asks ONE question (the command, its output's tail, its changes)
through the approver (unless its only changes are new files .gitignore
ignores: ``policy.quiet_reason``, applied with one line), and ``outcome`` --
the one place where a preview's fate is decided -- turns the answer into
``applied`` or ``discarded``. Whatever way it ends, the overlay is freed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from swebash_py.approvals.decision import Approver, Judgement, PendingCall, Verdict
from swebash_py.events import PreviewEvent
from swebash_py.preview.apply import MOVED, Journal
from swebash_py.preview.changes import Change
from swebash_py.preview.policy import quiet_reason
from swebash_py.preview.run import (
    Preview,
    PreviewRunner,
    PreviewUnavailable,
    bound_message,
    refused_note,
)
from swebash_py.preview.summary import as_json, change_line, counts_line, shown_name, summary_text
from swebash_py.tools.base import ToolContext, ToolResult

Outcome = Literal["no-changes", "applied", "discarded", "over-bound"]
OUTPUT_TAIL_LINES = 20
Emit = Callable[[Any], None]


class TurnJournal(Journal, Protocol):
    """Where an apply records what it changed, for ``/undo``
    (``preview.checkpoint.StoreJournal``)."""

    def commit(self, tool: str) -> None: ...
    def note(self) -> str | None: ...


JournalFactory = Callable[[], "TurnJournal | None"]


@dataclass
class Previewed:
    verdict: Verdict
    result: ToolResult
    outcome: Outcome


def outcome(verdict: Verdict) -> Outcome:
    """THE decision: an allowed answer applies; anything else discards."""
    return "applied" if verdict.action == "allow" else "discarded"


def output_tail(text: str, lines: int = OUTPUT_TAIL_LINES) -> str:
    kept = text.rstrip("\n").splitlines()
    if len(kept) <= lines:
        return "\n".join(kept)
    return "\n".join([f"… {len(kept) - lines} earlier lines", *kept[-lines:]])


@dataclass
class Settling:
    """What settling one preview needs besides the preview: who asks, where
    events and the undo journal go, and the call's context."""

    approver: Approver
    emit: Emit
    context: ToolContext
    journal: JournalFactory | None = None


async def settle(pending: PendingCall, judged: Judgement, runner: PreviewRunner,
                 result: ToolResult, how: Settling) -> Previewed:
    """Settle the preview ``runner`` caught while the call ran (``result``);
    the overlay is freed whatever way it ends."""
    preview = runner.preview
    if preview is None:  # the run failed before the overlay held anything
        return Previewed(Verdict("deny", "mode", "the preview did not run"), result,
                         "discarded")
    try:
        if preview.changes.refused:
            result = dataclasses.replace(result, output=result.output + "\n" + refused_note(
                preview.changes.refused, runner.workspace))
        return await _settle(pending, judged, preview, result, how)
    finally:
        preview.discard()


async def _settle(pending: PendingCall, judged: Judgement, preview: Preview,
                  result: ToolResult, how: Settling) -> Previewed:
    call, emit = pending.call, how.emit
    if preview.over_bound:
        emit(PreviewEvent(call.id, call.name, "over-bound", [], bound_message(preview.max_mb)))
        return Previewed(Verdict("deny", "mode", bound_message(preview.max_mb)),
                         _discarded(bound_message(preview.max_mb), result), "over-bound")
    if not preview.changed:
        emit(PreviewEvent(call.id, call.name, "no-changes", [], "changes: no changes"))
        return Previewed(Verdict("allow", "mode", "the preview changed no file"), result,
                         "no-changes")
    if judged.plan.preview == "first" and (quiet := quiet_reason(preview.changes,
                                                                 how.context.workspace)):
        emit(PreviewEvent(call.id, call.name, "applied", as_json(preview.changes), quiet))
        unasked = Verdict("allow", "mode", quiet)
        return await _apply(pending, judged, preview, result, how, unasked,
                            f"changes applied {quiet}")
    summary = summary_text(preview.changes)
    shown = dataclasses.replace(pending, preview=dataclasses.replace(
        pending.preview, output=output_tail(result.output), changes=summary))
    answered = await how.approver.ask(shown, judged)
    decided = outcome(answered)
    emit(PreviewEvent(call.id, call.name, decided, as_json(preview.changes), summary))
    if decided == "discarded":
        return Previewed(answered, _discarded(answered.reason, result), decided)
    return await _apply(pending, judged, preview, result, how, answered,
                        f"changes applied: {counts_line(preview.changes)}")


async def _apply(pending: PendingCall, judged: Judgement, preview: Preview, result: ToolResult,
                 how: Settling, answered: Verdict, note: str) -> Previewed:
    """Apply the preview's changes (checkpointed); what the user changed since it
    began is shown and asked about again."""
    record = how.journal() if how.journal is not None else _store_journal(how.context)
    report = preview.apply(record, keep=True)
    kept = report.conflicts
    if kept:  # changed in the workspace since the preview: shown, and asked again
        again = await how.approver.ask(dataclasses.replace(
            pending, preview=dataclasses.replace(pending.preview, output=None,
                                                 changes=conflicts_text(kept))), judged)
        if again.action == "allow":
            kept = preview.apply_conflicts(report, record).conflicts
    text = f"{result.output}\n[{note}]"
    if kept:
        names = ", ".join(f"{shown_name(c.rel)} ({why})" for c, why in kept[:20])
        text += f"\n[not applied, to keep the user's changes: {names}]"
    applied = dataclasses.replace(result, output=text, metadata={
        **result.metadata, "conflicts": [str(c.path) for c, _ in kept]})
    if record is not None:
        record.commit(pending.call.name)
        if undo_note := record.note():
            applied.output += f"\n{undo_note}"
    return Previewed(answered, applied, "applied")


def _store_journal(context: ToolContext) -> TurnJournal | None:
    """The turn's checkpoints, when the session keeps them (``/undo``)."""
    checkpoints = context.checkpoints
    if checkpoints is None:
        return None
    from swebash_py.preview.checkpoint import StoreJournal

    return StoreJournal(checkpoints, [context.workspace])


def conflicts_text(conflicts: list[tuple[Change, str]]) -> str:
    """The second question: what the user changed since the preview began."""
    lines = [f"changed in the workspace since the preview began ({len(conflicts)}); "
             "applying overwrites your version with the command's:"]
    lines += [f"  ! {change_line(c)}  [{why}]" for c, why in conflicts[:40]]
    if len(conflicts) > 40:
        lines.append(f"  … {len(conflicts) - 40} more")
    if any(why == MOVED for _c, why in conflicts):  # the writer refuses whatever the answer
        lines.append("  paths under a folder now a symlink stay unwritten, whatever the answer")
    return "\n".join(lines)


def _discarded(reason: str, result: ToolResult) -> ToolResult:
    return ToolResult(f"changes discarded: {reason}\n{result.output}", is_error=True,
                      metadata=result.metadata)


__all__ = ["PreviewUnavailable", "Previewed", "Settling", "TurnJournal", "outcome", "settle"]
