"""The streaming tool executor.

Calls are submitted the moment their arguments complete in the stream. Each
runs through one pipeline — parse, validate, permission, pre-hooks, run (with
progress and a timeout), the audit record, post-hooks, result — and every
failure becomes an error result the model can act on. A previewed call takes
the same pipeline: only its runner differs, plus a settle step whose question
gives its verdict (``agent.execution`` picks the runner from the call's plan).
Ordering: read-only calls run concurrently (bounded); any other call waits for
every call emitted before it, and every call waits for the non-read-only calls
emitted before it.
Questions to the user wait until the reply has finished streaming and are
asked one at a time, in emission order. Results come back in emission order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from swebash_py.agent.execution import Execution
from swebash_py.approvals.audit import CallRecord, DecisionLabel
from swebash_py.approvals.decision import Approver, Judgement, PendingCall, Verdict
from swebash_py.engine.messages import ImageBlock, ToolResultBlock, ToolUseBlock
from swebash_py.errors import ToolFailed
from swebash_py.events import (
    BlockStart,
    BlockStop,
    ToolProgress,
    TurnEvent,
)
from swebash_py.text.truncate import cap_middle
from swebash_py.tools.base import Tool, ToolContext, ToolResult, redact_result

if TYPE_CHECKING:
    from swebash_py.preview.flow import JournalFactory
    from swebash_py.tools.args import ToolArgs

Emit = Callable[[TurnEvent], None]
OnResult = Callable[[ToolResultBlock], None]
PreHook = Callable[[PendingCall], Awaitable[str | None]]
PostHook = Callable[[PendingCall, ToolResult], Awaitable[None]]
AuditSink = Callable[[CallRecord], None]
CANCELLED = "cancelled by the user"


class ToolRegistryView(Protocol):
    """What the executor needs from a registry."""

    def get(self, name: str) -> Tool[Any] | None: ...
    def names(self) -> list[str]: ...
    def closest(self, name: str) -> str | None: ...


@dataclasses.dataclass
class _Slot:
    call: ToolUseBlock
    read_only: bool
    task: asyncio.Task[ToolResultBlock]


class ToolExecutor:
    """Runs one reply's tool calls; see the module docstring for the rules."""

    def __init__(self, registry: ToolRegistryView, approver: Approver, context: ToolContext,
                 emit: Emit, next_index: Callable[[], int], *, max_concurrency: int = 8,
                 timeout: float | None = None, pre_hook: PreHook | None = None,
                 post_hook: PostHook | None = None, debug: bool = False,
                 journal: JournalFactory | None = None,
                 on_result: OnResult = lambda _block: None,
                 audit: AuditSink | None = None) -> None:
        self._registry = registry
        self._images: dict[str, list[ImageBlock]] = {}
        self._on_result = on_result
        self._answered: set[str] = set()
        self._approver = approver
        self._context = context
        self._emit = emit
        self._next_index = next_index
        self._execution = Execution(context, approver, emit,
                                    timeout=timeout or context.command_timeout + 15,
                                    max_concurrency=max_concurrency, debug=debug,
                                    journal=journal)
        self._pre_hook, self._post_hook = pre_hook, post_hook
        self._debug = debug
        self._audit = audit
        self._slots: list[_Slot] = []
        self._stream_done = asyncio.Event()
        self._ask_gate: asyncio.Future[None] | None = None

    # -- public -----------------------------------------------------------------

    def submit(self, call: ToolUseBlock) -> None:
        """Start handling ``call`` (in emission order)."""
        tool = self._registry.get(call.name)
        read_only = bool(tool and tool.read_only)
        before = list(self._slots)
        gate_before = self._ask_gate
        my_gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._ask_gate = my_gate
        task = asyncio.create_task(self._pipeline(call, tool, before, gate_before, my_gate))
        self._slots.append(_Slot(call, read_only, task))

    def stream_finished(self) -> None:
        """The reply has finished streaming: questions may now be asked."""
        self._stream_done.set()

    def images(self) -> list[ImageBlock]:
        """The images the finished calls returned (``metadata["images"]``), in
        emission order: they go to the model after the results."""
        return [image for slot in self._slots for image in self._images.get(slot.call.id, ())]

    async def results(self) -> list[ToolResultBlock]:
        """Every call's result, in emission order."""
        self.stream_finished()
        # shielded: cancelling the caller must not cancel one call and let the
        # calls waiting on it start; ``cancel()`` stops them all together.
        return [await asyncio.shield(slot.task) for slot in self._slots]

    async def wind_down(self, reason: str) -> list[ToolResultBlock]:
        """The reply failed: calls already running finish (their side effects are
        real); the others are cancelled and get ``reason``."""
        for slot in self._slots:
            if slot.call.id not in self._execution.started:
                slot.task.cancel()
        await asyncio.gather(*(s.task for s in self._slots), return_exceptions=True)
        return [self._finished_or(slot, reason) for slot in self._slots]

    async def cancel(self, reason: str = CANCELLED) -> list[ToolResultBlock]:
        """Cancel what runs; every call without a result gets ``reason``."""
        for slot in self._slots:
            slot.task.cancel()
        await asyncio.gather(*(s.task for s in self._slots), return_exceptions=True)
        return [self._finished_or(slot, reason) for slot in self._slots]

    @property
    def calls(self) -> list[ToolUseBlock]:
        return [slot.call for slot in self._slots]

    # -- the pipeline -------------------------------------------------------------

    async def _pipeline(self, call: ToolUseBlock, tool: Tool[Any] | None, before: list[_Slot],
                        gate_before: asyncio.Future[None] | None,
                        my_gate: asyncio.Future[None]) -> ToolResultBlock:
        try:
            valid = self._validate(call, tool)
            if isinstance(valid, str):
                _pass_gate(gate_before, my_gate)
                return self._finish(call, ToolResult(valid, is_error=True))
            await _wait_for(before, writes_only=valid[0].read_only)
            # previewed (and so judged) once the calls before it ran: an edit sees
            # the file a write before it made, a path what a command made of it
            pending_or_error = self._preview(call, *valid)
            if isinstance(pending_or_error, str):
                return self._finish(call, ToolResult(pending_or_error, is_error=True))
            judged = await self._decide(pending_or_error, gate_before, my_gate)
            return self._finish(call, await self._carry_out(pending_or_error, judged))
        finally:
            _pass_gate(gate_before, my_gate)

    async def _carry_out(self, pending: PendingCall, judged: Judgement) -> ToolResult:
        """The one path of a judged call, previewed or not: the denial, the
        pre-hook, the run (with the runner its plan picks), the audit record,
        the post-hook. A preview (``plan.preview``) is a different runner plus a
        settle step whose question gives the verdict (``agent.execution``)."""
        verdict, plan = judged
        previewed = bool(plan.preview) and verdict.action != "deny"
        if not previewed and verdict.action != "allow":
            self._record(pending, self._execution.label(verdict), None)
            return ToolResult(_denial_text(verdict), is_error=True)
        if self._pre_hook and (hook_denial := await self._pre_hook(pending)):
            return self._refused(pending, previewed, Verdict("deny", "hook", hook_denial), "hook",
                                 f"denied by a hook: {hook_denial}")
        if moved := self._moved_since_judged(pending):
            return self._refused(pending, previewed, Verdict("deny", "mode", moved), "denied",
                                 moved)
        started = time.monotonic()
        ran = await self._execution.run(pending, judged)  # the runner its plan picks
        if ran.result is None:  # asked again without a preview, and refused
            self._record(pending, ran.label, None)
            return ToolResult(_denial_text(ran.verdict), is_error=True)
        self._record(pending, ran.label, ran.result if ran.applied else None,
                     time.monotonic() - started)
        if self._post_hook:
            await self._post_hook(pending, ran.result)
        return ran.result

    def _refused(self, pending: PendingCall, previewed: bool, verdict: Verdict,
                 label: DecisionLabel, text: str) -> ToolResult:
        """A call a hook or a moved path stopped before it ran."""
        if previewed:  # its verdict was to come with the preview: say it now
            self._execution.approval(pending, verdict)
        self._record(pending, label, None)
        return ToolResult(text, is_error=True)

    def _validate(self, call: ToolUseBlock,
                  tool: Tool[Any] | None) -> tuple[Tool[Any], ToolArgs] | str:
        """Parse and validate the arguments; an error string when the call cannot run."""
        if tool is None:
            return _unknown_tool_text(call.name, self._registry)
        try:
            raw = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            cut = (exc.msg.startswith("Unterminated string")  # the text ended mid-value
                   or exc.pos >= len(call.arguments.rstrip()))
            hint = (" The arguments are cut off: the reply probably reached its output "
                    "limit (max_tokens); send large content in smaller parts (e.g. write "
                    "the start, then add the rest with edit_file)." if cut else "")
            return (f"invalid JSON in the arguments of {call.name}: {exc}. "
                    f"Received: {call.arguments[:300]!r}{hint}")
        except ValueError as exc:
            return (f"invalid JSON in the arguments of {call.name}: {exc}. "
                    f"Received: {call.arguments[:300]!r}")
        if not isinstance(raw, dict):
            return f"the arguments of {call.name} must be a JSON object, got {type(raw).__name__}"
        from swebash_py.tools.args import ArgsError

        try:
            return tool, tool.Args.parse(raw)
        except ArgsError as exc:  # one ``name: problem`` per misfit argument
            return f"invalid arguments for {call.name}: {exc}"

    def _preview(self, call: ToolUseBlock, tool: Tool[Any], args: ToolArgs) -> PendingCall | str:
        """What the call would do, for the judgement; an error string when it is
        known to fail (an edit whose old_text is not there)."""
        try:
            preview = tool.preview(args, self._context)
        except ToolFailed as exc:
            return str(exc)
        except Exception as exc:  # a preview failure must not crash the turn
            return f"{call.name} cannot run: {type(exc).__name__}: {exc}"
        return PendingCall(call, tool, args, preview)

    def _moved_since_judged(self, pending: PendingCall) -> str | None:
        """Why the call must not run if its path resolves elsewhere than when it
        was judged (a symlink swapped in while the question was open)."""
        if pending.tool.traits().path_arg is None:
            return None
        fresh = self._preview(pending.call, pending.tool, pending.args)
        if isinstance(fresh, str):
            return fresh
        before, now = pending.preview, fresh.preview
        if (before.paths, before.outside, before.sensitive, before.protected) == (
                now.paths, now.outside, now.sensitive, now.protected):
            return None
        shown = ", ".join(str(p) for p in now.paths) or "somewhere else"
        return (f"{pending.call.name} was not run: its path now resolves to {shown}, not what "
                "was approved (it changed meanwhile); call it again to have it judged afresh")

    async def _decide(self, pending: PendingCall, gate_before: asyncio.Future[None] | None,
                      my_gate: asyncio.Future[None]) -> Judgement:
        """Check, and ask when the check says so (in emission order, once the
        reply has streamed). A call previewed first is asked after its preview
        (``preview.flow.settle``), and under strict the preview follows the
        question: for both the question gate stays held until the call ends."""
        judged = self._approver.check(pending)
        verdict, plan = judged
        if verdict.action == "ask":
            await self._stream_done.wait()
            if gate_before is not None:
                await gate_before
            if plan.preview == "first":
                return judged
            verdict = await self._approver.ask(pending, judged)
            judged = Judgement(verdict, plan)
            if plan.preview and verdict.action == "allow":
                return judged
        _pass_gate(gate_before, my_gate)
        self._execution.approval(pending, verdict)
        return judged

    def _record(self, pending: PendingCall, label: DecisionLabel, result: ToolResult | None,
                seconds: float | None = None) -> None:
        """One audit row for the call; a failing sink never breaks the turn."""
        if self._audit is None:
            return
        exit_code = result.metadata.get("exit_code") if result is not None else None
        record = CallRecord(
            pending.call.name, pending.args.to_dict(), label,
            allowed=result is not None,
            exit_code=exit_code if isinstance(exit_code, int) else None,
            duration_ms=None if seconds is None else round(seconds * 1000),
            output=None if result is None else result.output)
        try:
            self._audit(record)
        except Exception:
            if self._debug:
                traceback.print_exc()

    def _finish(self, call: ToolUseBlock, result: ToolResult) -> ToolResultBlock:
        result = redact_result(result)  # secret values never reach the model
        if images := list(result.metadata.get("images") or ()):
            # all kept, tagged with their call: whether a request carries them is
            # decided per request and model (images.vision), not here
            self._images[call.id] = [msgspec.structs.replace(image, call_id=call.id)
                                     for image in images]
        content = cap_middle(result.output, self._context.max_output_chars)
        block = ToolResultBlock(call.id, call.name, content, result.is_error)
        self._answer(block)
        index = self._next_index()
        self._emit(ToolProgress(call.id, call.name, "done"))
        self._emit(BlockStart(index, "tool_result", call_id=call.id, tool=call.name))
        self._emit(BlockStop(index, "tool_result", content, call_id=call.id,
                             tool=call.name, is_error=result.is_error,
                             display=result.display or _full_if_cut(result.output, content)))
        return block

    def _finished_or(self, slot: _Slot, reason: str) -> ToolResultBlock:
        task = slot.task
        if task.done() and not task.cancelled() and task.exception() is None:
            return task.result()
        block = ToolResultBlock(slot.call.id, slot.call.name, reason, is_error=True)
        self._answer(block)
        return block

    def _answer(self, block: ToolResultBlock) -> None:
        """Hand a call's result to ``on_result`` (the store) the moment it exists,
        once per call: a crash after this loses nothing that ran."""
        if block.call_id not in self._answered:
            self._answered.add(block.call_id)
            self._on_result(block)


async def _wait_for(before: list[_Slot], *, writes_only: bool) -> None:
    """Wait for the earlier calls this one must follow; if any of them was
    cancelled, this one is cancelled too (never run past a cancelled call)."""
    waits = [s.task for s in before if not (writes_only and s.read_only)]
    if waits:
        await asyncio.wait(waits)
        if any(task.cancelled() for task in waits):
            raise asyncio.CancelledError


def _open_gate(gate: asyncio.Future[None]) -> None:
    if not gate.done():
        gate.set_result(None)


def _pass_gate(gate_before: asyncio.Future[None] | None, my_gate: asyncio.Future[None]) -> None:
    """Open ``my_gate`` once every earlier question is answered: a call that asks
    nothing must not let the calls after it ask while an earlier question is open."""
    if gate_before is None or gate_before.done():
        _open_gate(my_gate)
    else:
        gate_before.add_done_callback(lambda _done: _open_gate(my_gate))


def _full_if_cut(full: str, sent: str) -> str | None:
    """The whole output for the user's view when the model got a shortened one."""
    return full if full != sent else None


def _denial_text(verdict: Verdict) -> str:
    if verdict.instruction:
        return f"denied by the user, who said instead: {verdict.instruction}"
    if verdict.by == "user":
        return "denied by the user"
    return f"denied: {verdict.reason or 'not allowed'}"


def _unknown_tool_text(name: str, registry: ToolRegistryView) -> str:
    available = ", ".join(registry.names())
    suggestion = registry.closest(name)
    hint = f" Did you mean '{suggestion}'?" if suggestion else ""
    return f"unknown tool '{name}'. Available tools: {available}.{hint}"

