"""The turn loop: send the conversation, stream the reply, run the tools it
asks for, send their results, repeat — until the model answers without tools,
the iteration limit is reached, an error stops it, or the user cancels.

``Agent.run_turn`` is an async generator of turn events; the renderer, the
``--json`` printer and the tests just consume it. Whatever happens, the
history left behind is valid for the next request: every tool call has
exactly one result, in emission order.
"""

from __future__ import annotations

import asyncio
import itertools
import traceback
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from swebash_py.agent.assembler import ReplyAssembler
from swebash_py.engine.messages import Block, ImageBlock, Message, TextBlock
from swebash_py.engine.secrets import redact
from swebash_py.errors import ContextTooLong, ImagesRefused, MissingApiKey, ProviderError
from swebash_py.events import (
    ErrorEvent,
    Finish,
    Notice,
    ProviderEvent,
    StopReason,
    TurnComplete,
    TurnEvent,
    TurnStart,
    UsageEvent,
)
from swebash_py.images.vision import ImagePolicy
from swebash_py.provider.base import ChatRequest, ToolSpec
from swebash_py.provider.finish import user_message

if TYPE_CHECKING:  # the executor and the approvals load with a reply's first tool call
    from swebash_py.agent.executor import PostHook, PreHook, ToolExecutor
    from swebash_py.approvals.audit import CallRecord
    from swebash_py.approvals.decision import Approver
    from swebash_py.tools.base import ToolContext

StreamFn = Callable[[ChatRequest], AsyncIterator[ProviderEvent]]
_DONE = object()


class Recorder(Protocol):
    """Where finished blocks go as they complete (the session store)."""

    session_id: str | None  # the session recorded into (None: created by the next turn)

    def begin_turn(self, user_text: str) -> None: ...
    def add_block(self, block: Block, step: int = 0) -> None:
        """Commit one finished block; ``step`` numbers the request (round) of the
        turn it belongs to, as a tool's result may finish while its reply still
        streams."""
        ...
    def finish_turn(self, stop_reason: str, usage: dict[str, int], cost: float | None) -> None: ...
    def checkpoint(self, messages: list[Message]) -> None:
        """The history was replaced (compacted): this is what it is now."""
        ...
    def abandon_new_session(self) -> None:
        """The turn could not start at all (no key): a session it created goes."""
        ...
    def audit(self, record: CallRecord) -> None:
        """Keep one tool call's audit row."""
        ...


class Fitter(Protocol):
    """Fits the history into the model's context window before each request."""

    async def fit(self, system: str, messages: list[Message],
                  tools: list[ToolSpec]) -> tuple[list[Message], str | None]: ...

    async def recover(self, system: str, messages: list[Message],
                      tools: list[ToolSpec]) -> tuple[list[Message], str | None]: ...

    def observe_usage(self, input_tokens: int) -> None:
        """The provider counted ``input_tokens`` for the last fitted request."""
        ...

    def window(self) -> int:
        """The context window the history is fitted to (sent to Ollama as num_ctx)."""
        ...


class NullRecorder:
    session_id: str | None = None

    def audit(self, record: CallRecord) -> None: ...
    def checkpoint(self, messages: list[Message]) -> None: ...
    def abandon_new_session(self) -> None: ...
    def begin_turn(self, user_text: str) -> None: ...
    def add_block(self, block: Block, step: int = 0) -> None: ...
    def finish_turn(self, stop_reason: str, usage: dict[str, int], cost: float | None) -> None: ...


@dataclass
class AgentOptions:
    model: str
    system: str = ""
    max_iterations: int = 25
    temperature: float | None = None
    max_tokens: int | None = None
    api_base: str | None = None
    tools_enabled: bool = True
    debug: bool = False
    session_id: str | None = None
    tool_timeout: float | None = None
    text_tool_calls: bool = True  # [tools] text_tool_calls (agent.textcalls)
    supports_vision: bool | None = None  # the setting; None: the model table (images.vision)
    cost_fn: Callable[[str, int, int, int, int], float | None] = (
        lambda *_args: None)


@dataclass
class _TurnState:
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    cost: float | None = None
    text: list[str] = field(default_factory=list)
    step: int = 0
    rounds_with_tools: int = 0
    cache: dict[str, int] = field(default_factory=lambda: {"cache_read_tokens": 0,
                                                           "cache_write_tokens": 0})

    def recorded_usage(self) -> dict[str, int]:
        """What the store keeps of the turn's usage: tokens, and cache reads / writes."""
        return {**self.usage, **self.cache}


def _final_text(parts: list[str]) -> str:
    """``turn_complete.text``: the text of every round, blank-line separated
    (so "Let me look." and the answer after the tools do not run together)."""
    return "\n\n".join(part for part in parts if part)


class Agent:
    """Holds one conversation and runs its turns."""

    def __init__(self, options: AgentOptions, stream: StreamFn, registry: Any,
                 context: ToolContext, *, approver: Approver | None = None,
                 history: list[Message] | None = None, recorder: Recorder | None = None,
                 fitter: Fitter | None = None, pre_hook: PreHook | None = None,
                 post_hook: PostHook | None = None) -> None:
        self.options = options
        self.history: list[Message] = history if history is not None else []
        if approver is None:
            from swebash_py.approvals.decision import AllowAll

            approver = AllowAll()
        self.approver: Approver = approver
        self._stream = stream
        self._registry = registry
        self._context = context
        self._recorder: Recorder = recorder or NullRecorder()
        self._fitter = fitter
        self._pre_hook, self._post_hook = pre_hook, post_hook
        self._vision = ImagePolicy(options.supports_vision)  # which requests carry images

    async def run_turn(self, user_text: str, images: Sequence[ImageBlock] = ()
                       ) -> AsyncGenerator[TurnEvent, None]:
        """Run one user turn (with ``images`` attached), yielding its events."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        worker = asyncio.create_task(self._turn(user_text, list(images), queue.put_nowait))
        worker.add_done_callback(lambda _task: queue.put_nowait(_DONE))
        try:
            while (event := await queue.get()) is not _DONE:
                yield event
            await worker
        finally:
            if not worker.done():
                worker.cancel()
                await asyncio.gather(worker, return_exceptions=True)

    # -- one turn -------------------------------------------------------------

    async def _turn(self, user_text: str, images: list[ImageBlock],
                    emit: Callable[[TurnEvent], None]) -> None:
        counter = itertools.count()
        state = _TurnState()
        self._repair_if_needed()
        self._recorder.begin_turn(user_text)  # creates a new session: its id goes out first
        session_id = self._recorder.session_id or self.options.session_id
        emit(TurnStart(self.options.model, session_id))
        for image in images:  # stored by reference, before the first request (step 0)
            self._recorder.add_block(image, 0)
        self._append("user", [TextBlock(user_text), *images])
        stop: StopReason = "stop"
        try:
            for _round in range(self.options.max_iterations):
                finish = await self._round(emit, lambda: next(counter), state)
                if finish.reason != "tool_calls":
                    stop = self._stop_for(finish, state, emit)
                    break
            else:
                stop = "max_iterations"
                emit(ErrorEvent(f"stopped after {self.options.max_iterations} tool rounds "
                                "(max_iterations); the partial answer is kept", "max_iterations"))
        except asyncio.CancelledError:
            self._recorder.finish_turn("cancelled", state.recorded_usage(), state.cost)
            raise
        except ProviderError as exc:
            stop = "error"
            if isinstance(exc, MissingApiKey) and not any(state.usage.values()):
                self._recorder.abandon_new_session()  # no session for a turn never run
            detail = "\n" + traceback.format_exc() if self.options.debug else ""
            emit(ErrorEvent(redact(f"{exc}{detail}"), type(exc).__name__))
        if stop == "length":
            emit(Notice("the answer was cut: the model reached its output limit (max_tokens)"))
        self._recorder.finish_turn(stop, state.recorded_usage(), state.cost)
        emit(TurnComplete(stop, _final_text(state.text), dict(state.usage)))

    def _stop_for(self, finish: Finish, state: _TurnState,
                  emit: Callable[[TurnEvent], None]) -> StopReason:
        """How the turn ends for the last reply's finish; what the user must
        hear about (a refusal, a filter, a reason we do not know, an empty
        answer) becomes one error line."""
        message = user_message(finish)
        if message is None and finish.reason == "stop" and not state.rounds_with_tools \
                and not any(state.text):
            message = "the model returned an empty answer"
        if message is None:
            return "length" if finish.reason == "length" else "stop"
        if self.options.debug:
            message += f" [finish reason {finish.reason!r}, from the provider {finish.raw!r}]"
        emit(ErrorEvent(message, finish.reason))
        if finish.reason in ("refusal", "content_filter"):
            return "refusal" if finish.reason == "refusal" else "content_filter"
        return "error"

    async def _round(self, emit: Callable[[TurnEvent], None], next_index: Callable[[], int],
                     state: _TurnState) -> Finish:
        """One request and its tools; returns how the reply finished. Every block is
        committed the moment it is complete — each tool result as its call ends."""
        state.step += 1
        step = state.step

        def record(block: Block) -> None:
            self._recorder.add_block(block, step)

        assembler = ReplyAssembler(emit, next_index, record)
        executor: ToolExecutor | None = None  # made at the reply's first tool call
        try:
            async for event in self._guarded(self._request_stream(emit), emit):
                for call in assembler.feed(event):
                    executor = executor or self._executor(emit, next_index, record)
                    executor.submit(call)
            if executor is not None:
                executor.stream_finished()
        except BaseException as exc:
            assembler.close()
            self._append("assistant", assembler.blocks)
            if executor is not None:  # no call, nothing to stop or answer
                if isinstance(exc, asyncio.CancelledError):
                    from swebash_py.agent.executor import CANCELLED

                    results = await asyncio.shield(executor.cancel(CANCELLED))
                else:
                    results = await asyncio.shield(executor.wind_down(
                        "not run: the model's reply failed before it finished"))
                self._append("user", [*results, *self._tool_images(executor, record)])
            state.text.append(assembler.text)
            raise
        self._append("assistant", assembler.blocks)
        state.text.append(assembler.text)
        self._account(assembler, emit, state)
        if executor is None or not executor.calls:
            finish = assembler.finish or Finish("stop")
            return Finish("stop", finish.raw) if finish.reason == "tool_calls" else finish
        try:
            results = await executor.results()
        except BaseException:
            results = await asyncio.shield(executor.cancel())
            self._append("user", [*results, *self._tool_images(executor, record)])
            raise
        self._append("user", [*results, *self._tool_images(executor, record)])
        state.rounds_with_tools += 1
        return Finish("tool_calls")

    def _guarded(self, events: AsyncIterator[ProviderEvent],
                 emit: Callable[[TurnEvent], None]) -> AsyncIterator[ProviderEvent]:
        """The reply's events through the local-model guards: calls written as text
        made real (when tools are offered and it is on), an endless line ended."""
        from swebash_py.agent.repetition import without_loops

        names = [spec.name for spec in self._tool_specs()]
        if names and self.options.text_tool_calls:
            from swebash_py.agent.textcalls import with_text_calls

            events = with_text_calls(events, names)
        return without_loops(events, emit)

    def _executor(self, emit: Callable[[TurnEvent], None], next_index: Callable[[], int],
                  record: Callable[[Block], None]) -> ToolExecutor:
        """The executor of one reply's tool calls. It (with the approvals and the
        sandbox's redaction of results) is imported here: an answer that calls no
        tool needs none of it."""
        from swebash_py.agent.executor import ToolExecutor

        return ToolExecutor(self._registry, self.approver, self._context, emit, next_index,
                            timeout=self.options.tool_timeout, pre_hook=self._pre_hook,
                            post_hook=self._post_hook, debug=self.options.debug,
                            on_result=record, audit=self._recorder.audit)

    async def _request_stream(self, emit: Callable[[TurnEvent], None]
                              ) -> AsyncIterator[ProviderEvent]:
        """The reply's events; one recovery if the provider says the context is too
        long, one if it refuses the images (then they go as notes: images.vision)."""
        tools = self._tool_specs()
        messages = await self._fit(emit, tools, recover=False)
        recovered = False
        while True:
            shown = False
            try:
                async for event in self._stream(self._request(messages, tools, emit)):
                    shown = True
                    yield event
                return
            except ContextTooLong:
                if shown or recovered or self._fitter is None:
                    raise
                recovered = True
                messages = await self._fit(emit, tools, recover=True)
            except ImagesRefused:
                if shown or not self._vision.refused(self.options.model, messages):
                    raise

    async def _fit(self, emit: Callable[[TurnEvent], None], tools: list[ToolSpec],
                   *, recover: bool) -> list[Message]:
        if self._fitter is None:
            return self.history
        method = self._fitter.recover if recover else self._fitter.fit
        fitted, note = await method(self.options.system, self.history, tools)
        if note:
            emit(Notice(note))
            self.history[:] = fitted
            self._recorder.checkpoint(self.history)
        return fitted

    def _request(self, messages: list[Message], tools: list[ToolSpec],
                 emit: Callable[[TurnEvent], None]) -> ChatRequest:
        o = self.options
        messages = self._vision.for_request(messages, o.model, lambda text: emit(Notice(text)))
        return ChatRequest(model=o.model, messages=list(messages), system=o.system or None,
                           tools=tools, temperature=o.temperature, max_tokens=o.max_tokens,
                           api_base=o.api_base,
                           context_window=self._fitter.window() if self._fitter else None)

    def _tool_specs(self) -> list[ToolSpec]:
        return list(self._registry.specs()) if self.options.tools_enabled else []

    def _repair_if_needed(self) -> None:
        """A turn interrupted twice may have left calls without results: answer
        them ("interrupted") so the next request is valid."""
        last = self.history[-1] if self.history else None
        if last is not None and last.role == "assistant" and last.tool_uses():
            from swebash_py.engine.context import repair

            self.history[:] = repair(self.history)

    def _account(self, assembler: ReplyAssembler, emit: Callable[[TurnEvent], None],
                 state: _TurnState) -> None:
        usage = assembler.usage
        if usage is None:
            return
        cost = self.options.cost_fn(self.options.model, usage.input_tokens, usage.output_tokens,
                                    usage.cache_read_tokens, usage.cache_write_tokens)
        if self._fitter is not None:
            self._fitter.observe_usage(usage.input_tokens)
        state.usage["input_tokens"] += usage.input_tokens
        state.usage["output_tokens"] += usage.output_tokens
        state.cache["cache_read_tokens"] += usage.cache_read_tokens
        state.cache["cache_write_tokens"] += usage.cache_write_tokens
        if cost is not None:
            state.cost = (state.cost or 0.0) + cost
        emit(UsageEvent(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                        usage.cache_write_tokens, cost))

    @staticmethod
    def _tool_images(executor: ToolExecutor, record: Callable[[Block], None]
                     ) -> list[ImageBlock]:
        """The images the tools returned, recorded (by reference) after the results."""
        images = executor.images()
        for image in images:
            record(image)
        return images

    def _append(self, role: str, blocks: list[Any]) -> None:
        """Add blocks to the history (they were recorded as they completed),
        merging with a message of the same role."""
        if not blocks:
            return
        if self.history and self.history[-1].role == role:
            self.history[-1].blocks.extend(blocks)
        else:
            self.history.append(Message(role, list(blocks)))  # type: ignore[arg-type]
