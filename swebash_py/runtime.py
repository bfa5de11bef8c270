"""The composition root: builds an agent from settings and the user interface.

Everything that talks to the outside (provider, tools, approvals, store) is
created here, once per process, and handed down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from swebash_py.agent.loop import Agent, AgentOptions
from swebash_py.approvals.decision import Approver
from swebash_py.config import Settings
from swebash_py.engine.secrets import redact
from swebash_py.engine.system_prompt import build_system_prompt
from swebash_py.provider.client import ProviderClient
from swebash_py.provider.retry import RetryPolicy
from swebash_py.tools.base import ToolContext


@dataclass
class Runtime:
    settings: Settings
    agent: Agent
    client: ProviderClient
    registry: Any
    jobs: Any = None  # the session's background commands


def build_runtime(settings: Settings, *, approver: Approver, no_tools: bool = False,
                  debug: bool = False, on_notice: Callable[[str], None] = lambda _n: None,
                  history: Any = None, recorder: Any = None, fitter: Any = None,
                  session_id: str | None = None, pre_hook: Any = None,
                  post_hook: Any = None, checkpoints: Any = None) -> Runtime:
    """An agent wired to the provider, tools and approvals ``settings`` ask for."""
    from swebash_py.tools.background import JobTable
    from swebash_py.tools.registry import ToolRegistry, default_tools

    registry = ToolRegistry([] if no_tools else default_tools(settings))
    client = ProviderClient(settings.backend, RetryPolicy(max_retries=settings.max_retries),
                            on_retry=lambda note: on_notice(redact(note)))
    workspace = settings.workspace
    system = build_system_prompt(workspace, registry.names(), settings.system_prompt)
    options = AgentOptions(
        model=settings.resolved_model, system=system, max_iterations=settings.max_iterations,
        temperature=settings.temperature, max_tokens=settings.max_tokens,
        api_base=settings.api_base, tools_enabled=not no_tools, debug=debug,
        session_id=session_id, cost_fn=_cost)
    context = ToolContext(workspace=workspace, command_timeout=settings.tools.command_timeout,
                          max_output_chars=settings.tools.max_output_chars, settings=settings,
                          checkpoints=checkpoints, jobs=None if no_tools else JobTable())
    agent = Agent(options, client.stream, registry, context, approver=approver,
                  history=history, recorder=recorder, fitter=fitter,
                  pre_hook=pre_hook, post_hook=post_hook)
    return Runtime(settings, agent, client, registry, context.jobs)


def _cost(model: str, input_tokens: int, output_tokens: int, cache_read: int,
          cache_write: int) -> float | None:
    from swebash_py.engine import modelinfo

    return modelinfo.cost(model, input_tokens, output_tokens, cache_read, cache_write)
