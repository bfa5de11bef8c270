"""The one builder: store, provider client, fitter, tools, approver and agent.

``build_session`` makes every object that talks to the outside, once per
process, and hands each what it needs through its constructor. The one-shot
runner and the REPL both start here.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from swebash_py.agent.fitting import ContextFitter, edit_kind
from swebash_py.agent.loop import Agent, AgentOptions
from swebash_py.approvals import remembered
from swebash_py.approvals.approver import Answer, Asker, PolicyApprover
from swebash_py.config.settings import Settings
from swebash_py.engine.secrets import redact
from swebash_py.engine.system_prompt import RunMode, build_system_prompt
from swebash_py.errors import ConfigError, SwebashError
from swebash_py.front import startup_gc
from swebash_py.project.extensions import Extensions, build_extensions
from swebash_py.provider.client import ProviderClient
from swebash_py.provider.retry import RetryPolicy
from swebash_py.store import Store
from swebash_py.store.opening import open_store as open_store  # re-exported for callers
from swebash_py.store.recorder import StoreRecorder
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext
from swebash_py.tools.registry import ToolRegistry, default_tools

if TYPE_CHECKING:  # loaded with the first tool call (or configured rules / hooks)
    from swebash_py.agent.executor import PostHook, PreHook
    from swebash_py.approvals.rules import RuleSet

Suspend = Callable[[], AbstractContextManager[object]]


@dataclass
class Session:
    """Everything a conversation needs, built together."""

    settings: Settings
    store: Store
    recorder: StoreRecorder
    client: ProviderClient
    registry: ToolRegistry
    fitter: ContextFitter
    approver: PolicyApprover
    agent: Agent
    jobs: JobTable | None  # the session's background commands (None: no tools)
    extensions: Extensions = field(default_factory=Extensions)  # AGENTS.md, commands, MCP
    uploader: Any = None  # the team store's uploader (None: no store URL)

    def close(self) -> None:
        from swebash_py.team.wiring import stop_uploader

        stop_uploader(self.uploader, self.store)  # waits at most 2 s
        if self.jobs is not None:
            self.jobs.close()  # background commands end with the session
        self.store.close()


def build_session(settings: Settings, *, resume: str | None = None,
                  continue_last: bool = False, no_tools: bool = False, debug: bool = False,
                  asker: Asker | None = None, use_tty: bool = True,
                  renderer_suspend: Suspend | None = None,
                  on_notice: Callable[[str], None] = lambda _n: None) -> Session:
    """A conversation (new, ``resume``d or the latest here) ready for turns."""
    store = open_store()
    cwd = str(settings.workspace)
    session_id = resume_target(store, resume, continue_last, cwd, settings, on_notice)
    history = store.load_messages(session_id) if session_id else []
    recorder = StoreRecorder(store, settings.resolved_model, cwd, session_id)
    approver = make_approver(settings, asker, use_tty, renderer_suspend)
    if broken := remembered.problem():  # its rules are not used: say so once
        on_notice(f"warning: {broken}")
    registry = ToolRegistry([] if no_tools else default_tools(settings))
    extensions = build_extensions(settings, registry, tools_enabled=not no_tools,
                                  on_notice=on_notice)
    client = ProviderClient(settings.backend, RetryPolicy(max_retries=settings.max_retries),
                            on_retry=lambda note: on_notice(redact(note)),
                            connect_timeout=settings.connect_timeout,
                            stream_idle_timeout=settings.stream_idle_timeout)
    options = agent_options(settings, registry, no_tools, debug, session_id,
                            extensions.instructions.prompt_text(), can_ask=approver.can_ask)
    fitter = ContextFitter(lambda: options.model, client.stream,
                           changes_files=edit_kind(registry),  # "Files changed": by trait
                           context_window=settings.context_window,
                           max_tokens=settings.max_tokens, api_base=lambda: options.api_base)
    jobs = None if no_tools else JobTable()
    context = ToolContext(workspace=settings.workspace,
                          command_timeout=settings.tools.command_timeout,
                          max_output_chars=settings.tools.max_output_chars,
                          checkpoints=recorder, jobs=jobs, sandbox=settings.sandbox)
    pre_hook, post_hook = tool_hooks(settings, cwd, on_notice)
    agent = Agent(options, client.stream, registry, context, approver=approver,
                  history=history, recorder=recorder, fitter=fitter,
                  pre_hook=pre_hook, post_hook=post_hook)
    from swebash_py.team.wiring import start_uploader

    startup_gc.settle()
    return Session(settings, store, recorder, client, registry, fitter, approver, agent,
                   jobs, extensions, start_uploader(settings, store))


def tool_hooks(settings: Settings, cwd: str, on_notice: Callable[[str], None]
               ) -> tuple[PreHook | None, PostHook | None]:
    """The ``[hooks]`` around each tool call (their runner is imported only when set)."""
    if not (settings.hooks.pre_tool or settings.hooks.post_tool):
        return None, None
    from swebash_py.agent.hooks import hook_callbacks

    return hook_callbacks(settings.hooks, cwd, on_notice)


def agent_options(settings: Settings, registry: ToolRegistry, no_tools: bool, debug: bool,
                  session_id: str | None, instructions: str = "",
                  can_ask: bool = True) -> AgentOptions:
    mode = RunMode(settings.approval, settings.sandbox.mode, settings.sandbox.network,
                   settings.sandbox.preview, can_ask)
    system = build_system_prompt(settings.workspace, registry.names(), settings.system_prompt,
                                 instructions=instructions, mode=mode)
    return AgentOptions(
        model=settings.resolved_model, system=system, max_iterations=settings.max_iterations,
        temperature=settings.temperature, max_tokens=settings.max_tokens,
        api_base=settings.api_base, tools_enabled=not no_tools, debug=debug,
        session_id=session_id, cost_fn=_cost, supports_vision=settings.supports_vision,
        text_tool_calls=settings.tools.text_tool_calls and local_server(settings))


# providers whose servers run on the user's side (their own calls may come as text)
_LOCAL_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "llamafile", "hosted_vllm",
                              "vllm", "openai_like"})


def local_server(settings: Settings) -> bool:
    """A server the user points at (``api_base``) or a local provider: only there
    are calls written as text made into calls. The hosted APIs parse their own
    models' calls, so a call-shaped example in their text stays text."""
    prefix = settings.resolved_model.partition("/")[0]
    return bool(settings.api_base) or prefix in _LOCAL_PROVIDERS


def make_approver(settings: Settings, asker: Asker | None, use_tty: bool,
                  renderer_suspend: Suspend | None) -> PolicyApprover:
    """Approvals under the configured mode and rules; questions on the terminal
    unless an ``asker`` is given (the REPL's) or there is no one to ask."""
    if asker is None and use_tty:  # under yolo too: an escalation always asks
        asker = _terminal_asker(renderer_suspend)
    return PolicyApprover(settings.approval, rules_from(settings), settings.workspace, asker,
                          sandboxed=lambda: sandbox_active(settings),
                          host_allow=host_rules_from(settings),
                          preview_mode=lambda pending, mode: _preview_mode(pending, mode,
                                                                           settings),
                          mode_fixed_by=settings.gate.fixed_by("approval"))


def _terminal_asker(suspend: Suspend | None) -> Asker | None:
    """``ui.tty_asker.terminal_asker``, imported (with rich) at the first question:
    most answers ask none. None when there is no terminal to ask on (checked now,
    as ``terminal_asker`` does, so a call is denied for want of one at once)."""
    from swebash_py.ui.terminal import has_terminal

    if not has_terminal():
        return None
    loaded: list[Asker | None] = []

    async def ask(pending: Any, verdict: Any, rule: list[str] | None) -> Answer:
        if not loaded:
            from swebash_py.ui.tty_asker import terminal_asker

            loaded.append(terminal_asker(suspend))
        real = loaded[0]
        return await real(pending, verdict, rule) if real is not None else Answer("no")

    return ask


def _preview_mode(pending: Any, approval_mode: str, settings: Settings) -> str:
    """Whether a call that would ask runs as a preview first (preview.policy)."""
    from swebash_py.preview.policy import preview_mode

    return preview_mode(pending, approval_mode, settings)


def rules_from(settings: Settings) -> RuleSet | None:
    """The ``[permissions]`` rules, checked now (a bad one is a config error at
    start-up); None when there are none (the approver makes the empty set if a
    call comes, so an answer without tools imports no rule parser)."""
    if not (settings.permissions.allow or settings.permissions.deny):
        return None
    from swebash_py.approvals.rules import RuleSet

    try:
        return RuleSet.from_lists(settings.permissions.allow, settings.permissions.deny)
    except ValueError as exc:
        raise ConfigError(f"config error: [permissions]: {exc}") from exc


def sandbox_active(settings: Settings) -> bool:
    """Whether model commands run in a working OS sandbox."""
    from swebash_py.sandbox.runner import available

    return settings.sandbox.mode != "off" and available().ok


def host_rules_from(settings: Settings) -> RuleSet | None:
    """``[sandbox] host_allow`` as rules, checked now; None when it is empty."""
    if not settings.sandbox.host_allow:
        return None
    from swebash_py.approvals.grant import host_rules

    try:
        return host_rules(settings.sandbox.host_allow)
    except ValueError as exc:
        raise ConfigError(f"config error: [sandbox] host_allow: {exc}") from exc


def resume_target(store: Store, resume: str | None, continue_last: bool, cwd: str,
                  settings: Settings | None = None,
                  warn: Callable[[str], None] | None = None) -> str | None:
    """The session id to continue, if one is asked for (with a store URL, the team
    store's records of it are merged in first: it may have started on another host)."""
    if resume:
        pulled = None
        if settings is not None:
            from swebash_py.team.remote import pull_session

            pulled = pull_session(settings, store, resume, warn)
        info = store.get_session(pulled or resume)
        if info is None:
            raise SwebashError(f"no session '{resume}' (see `ai sessions list`)")
        return str(info.id)
    if continue_last:
        found = store.latest_session(cwd)
        if found is None:
            raise SwebashError("no earlier session to continue here")
        return str(found)
    return None


def _cost(model: str, input_tokens: int, output_tokens: int, cache_read: int,
          cache_write: int) -> float | None:
    from swebash_py.engine import modelinfo

    return modelinfo.cost(model, input_tokens, output_tokens, cache_read, cache_write)
