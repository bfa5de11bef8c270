"""Building agents against the fake provider, and reading what was sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swebash_py.agent.fitting import ContextFitter
from swebash_py.agent.loop import Agent, AgentOptions, Fitter, Recorder
from swebash_py.approvals.decision import Approver, ExecutionPlan, Judgement, PendingCall, Verdict
from swebash_py.engine.messages import Message
from swebash_py.events import TurnEvent
from swebash_py.provider.client import ProviderClient
from swebash_py.provider.retry import RetryPolicy
from swebash_py.tools.base import ToolContext
from tests.agent.scripted_tools import Journal, all_tools
from tests.fakeprovider import FakeProvider, RecordedRequest


class DenyAll:
    """Every call is refused."""

    mode = "strict"

    def check(self, pending: PendingCall) -> Judgement:
        return Judgement(Verdict("deny", "mode", "tool calls are disabled"), ExecutionPlan())

    async def ask(self, pending: PendingCall, judged: Judgement) -> Verdict:
        return Verdict("deny", "mode", "tool calls are disabled")


MODELS = {"openai": "openai/test-model", "anthropic": "anthropic/claude-test"}


def make_agent(fp: FakeProvider, wire: str, journal: Journal, *,
               approver: Approver | None = None, max_iterations: int = 25,
               tool_timeout: float | None = None, max_output_chars: int = 30_000,
               registry: Any = None, recorder: Recorder | None = None,
               fitter: Fitter | None = None, history: list[Message] | None = None) -> Agent:
    client = ProviderClient("direct", policy=RetryPolicy(max_retries=0))
    options = AgentOptions(model=MODELS[wire], api_base=fp.url, system="test system",
                           max_iterations=max_iterations, tool_timeout=tool_timeout)
    context = ToolContext(workspace=Path.cwd(), max_output_chars=max_output_chars)
    return Agent(options, client.stream, registry or all_tools(journal), context,
                 approver=approver, recorder=recorder, fitter=fitter, history=history)


def builtin_edits(name: str) -> bool:
    """The built-in tools of the edit kind (by their traits): what the session's
    registry says (``fitting.edit_kind``) for histories that name built-in tools."""
    from swebash_py.tools.registry import builtin_traits

    traits = builtin_traits().get(name)
    return traits is not None and traits.kind == "edit"


def small_window_fitter(fp: FakeProvider, wire: str) -> ContextFitter:
    """A fitter with a 10k-token window that summarises through ``fp``."""
    client = ProviderClient("direct", policy=RetryPolicy(max_retries=0))
    return ContextFitter(lambda: MODELS[wire], client.stream, changes_files=builtin_edits,
                         context_window=10_000, max_tokens=500, api_base=lambda: fp.url)


async def run(agent: Agent, text: str) -> list[TurnEvent]:
    return [event async for event in agent.run_turn(text)]


def sent_results(request: RecordedRequest) -> list[tuple[str, str, bool]]:
    """(call id, content, is_error) of every tool result in a request, in order."""
    body = request.body
    if request.path.endswith("/messages"):
        return [(b["tool_use_id"], _text(b["content"]), bool(b.get("is_error")))
                for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_result"]
    return [(m["tool_call_id"], m["content"], m["content"].startswith("Error:"))
            for m in body["messages"] if m["role"] == "tool"]


def sent_call_ids(request: RecordedRequest) -> list[str]:
    """Ids of every tool call the request's assistant messages carry, in order."""
    body = request.body
    if request.path.endswith("/messages"):
        return [b["id"] for m in body["messages"] if m["role"] == "assistant"
                and isinstance(m["content"], list) for b in m["content"]
                if b.get("type") == "tool_use"]
    return [c["id"] for m in body["messages"] if m["role"] == "assistant"
            for c in m.get("tool_calls") or []]


def assert_paired(request: RecordedRequest) -> None:
    """Every call in the request has exactly one result, in the same order."""
    assert sent_call_ids(request) == [r[0] for r in sent_results(request)]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)
