"""Wires the context manager to a model: window, reply budget, summaries.

Implements the agent loop's ``Fitter``: before every request the history is
fitted into the model's window (compacting with a model-written summary
over the threshold); after a "context exceeded" answer it is shrunk once.
The provider's reported usage calibrates the token estimate.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from swebash_py.engine import modelinfo
from swebash_py.engine.compaction_state import (
    STATE_INSTRUCTION,
    ChangesFiles,
    recorded,
    state_text,
)
from swebash_py.engine.context import (
    ContextManager,
    FitResult,
    merge_same_role,
    split_summary,
)
from swebash_py.engine.messages import Message, TextBlock
from swebash_py.events import ProviderEvent, TextDelta, UsageReport
from swebash_py.provider.base import ChatRequest, ToolSpec

if TYPE_CHECKING:
    from swebash_py.tools.registry import ToolRegistry

StreamFn = Callable[[ChatRequest], AsyncIterator[ProviderEvent]]
DEFAULT_REPLY_BUDGET = 4_096
SUMMARY_TOKENS = 1_024
SUMMARY_INSTRUCTION = STATE_INSTRUCTION  # a structured state (engine.compaction_state)


def edit_kind(registry: ToolRegistry) -> ChangesFiles:
    """Whether the registry's tool of that name changes files: its kind is
    ``edit`` (its traits, never its name; a tool no longer there: no)."""
    def changes_files(name: str) -> bool:
        tool = registry.get(name)
        return tool is not None and tool.traits().kind == "edit"
    return changes_files


class ContextFitter:
    """The loop's ``Fitter`` for one conversation."""

    def __init__(self, model: Callable[[], str], stream: StreamFn, *,
                 changes_files: ChangesFiles,
                 context_window: int | None = None, max_tokens: int | None = None,
                 api_base: Callable[[], str | None] = lambda: None) -> None:
        """``changes_files``: which tools' calls the state lists as files changed
        (``edit_kind(registry)``; required, so no fitter forgets them)."""
        self._model = model
        self._changes_files = changes_files
        self._stream = stream
        self._override = context_window
        self._max_tokens = max_tokens
        self._api_base = api_base
        self.manager = ContextManager(self._summarize)
        self.last: FitResult | None = None
        # (model, input, output) of each summary request: they belong to no turn
        self.summary_usage: list[tuple[str, int, int]] = []

    def window(self) -> int:
        return modelinfo.context_window(self._model(), self._override)

    def reply_budget(self) -> int:
        return self._max_tokens or min(modelinfo.max_output_tokens(self._model())
                                       or DEFAULT_REPLY_BUDGET, DEFAULT_REPLY_BUDGET)

    async def fit(self, system: str, messages: list[Message],
                  tools: list[ToolSpec]) -> tuple[list[Message], str | None]:
        result = await self.manager.fit(system, messages, self._tools_tokens(tools),
                                        self.window(), self.reply_budget())
        self.last = result
        return result.messages, result.note

    async def recover(self, system: str, messages: list[Message],
                      tools: list[ToolSpec]) -> tuple[list[Message], str | None]:
        result = self.manager.recover_from_overflow(system, messages, self._tools_tokens(tools),
                                                    self.window(), self.reply_budget())
        self.last = result
        return result.messages, result.note or "context window exceeded; history shortened"

    async def compact(self, system: str, messages: list[Message],
                      tools: list[ToolSpec]) -> tuple[list[Message], str | None]:
        """``/compact``: summarise now, whatever the size."""
        result = await self.manager.compact(system, messages, self._tools_tokens(tools),
                                            self.window(), self.reply_budget())
        self.last = result
        return result.messages, result.note

    def observe_usage(self, input_tokens: int) -> None:
        """Calibrate the estimate with what the provider counted."""
        if self.last is not None and input_tokens > 0:
            self.manager.counter.calibrate(self.last.raw_tokens, input_tokens)

    def usage_fraction(self) -> float | None:
        """How full the window was at the last request (for the toolbar)."""
        if self.last is None:
            return None
        return min(1.0, self.last.tokens / max(1, self.window()))

    def _tools_tokens(self, tools: list[ToolSpec]) -> int:
        if not tools:
            return 0
        text = json.dumps([[t.name, t.description, t.parameters] for t in tools])
        return self.manager.counter.text(text)

    async def _summarize(self, messages: list[Message]) -> str:
        """The state of ``messages``: the parts we record ourselves (the user's
        words, refusals, changed files; carried over from an earlier state) and
        the model's headings."""
        previous, body = split_summary(messages)
        parts = recorded(body, previous, changes_files=self._changes_files)
        return state_text(await self._model_state(messages), parts)

    async def _model_state(self, messages: list[Message]) -> str:
        from swebash_py.images.vision import SUMMARY, as_notes

        # the summary is text: no image bytes (a text-only model would refuse them)
        conversation = [*as_notes(messages, SUMMARY),
                        Message("user", [TextBlock(SUMMARY_INSTRUCTION)])]
        request = ChatRequest(model=self._model(), messages=merge_same_role(conversation),
                              system="You write concise, factual summaries.",
                              max_tokens=SUMMARY_TOKENS, api_base=self._api_base())
        parts: list[str] = []
        async for event in self._stream(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, UsageReport):
                self.summary_usage.append((request.model, event.input_tokens,
                                           event.output_tokens))
        return "".join(parts).strip()
