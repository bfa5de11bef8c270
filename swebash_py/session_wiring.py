"""Opens (or continues) a stored session and builds the runtime around it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from swebash_py.approvals.approver import Asker, PolicyApprover
from swebash_py.approvals.rules import RuleSet
from swebash_py.checkpoints.model import FileChange
from swebash_py.cli.invocation import Invocation
from swebash_py.config import Settings
from swebash_py.engine.messages import Block, Message
from swebash_py.errors import ConfigError, SwebashError
from swebash_py.paths import data_dir
from swebash_py.runtime import Runtime, build_runtime


class StoreRecorder:
    """Writes each finished block to the store; creates the session lazily."""

    def __init__(self, store: Any, model: str, cwd: str, session_id: str | None) -> None:
        self.store = store
        self.model = model
        self.cwd = cwd
        self.session_id: str | None = None
        self._turn_id: Any = None
        self._last_turn_id: Any = None
        self.resume(session_id)

    def begin_turn(self, user_text: str) -> None:
        if self.session_id is None:
            self.session_id = self.store.create_session(self.model, self.cwd)
        self._turn_id = self._last_turn_id = self.store.begin_turn(self.session_id, user_text)

    def add_block(self, block: Block) -> None:
        if self._turn_id is not None:
            self.store.add_block(self._turn_id, block)

    def checkpoint(self, messages: list[Message]) -> None:
        """Persist a compacted history, so resuming does not compact again."""
        if self._last_turn_id is not None:
            self.store.add_checkpoint(self._last_turn_id, messages)

    def resume(self, session_id: str | None) -> None:
        """Record into ``session_id`` from now on (None: a new session, created lazily)."""
        self.session_id = session_id
        self._turn_id = None
        self._last_turn_id = self.store.last_turn_id(session_id) if session_id else None

    def record(self, change: FileChange) -> int | None:
        """A file change of the current turn (a checkpoint for /undo)."""
        if self._turn_id is None:
            return None
        return int(self.store.record_change(self._turn_id, change))

    def forget(self, change_id: int) -> None:
        self.store.drop_change(change_id)

    def finish_turn(self, stop_reason: str, usage: dict[str, int], cost: float | None) -> None:
        if self._turn_id is not None:
            self.store.finish_turn(self._turn_id, stop_reason, usage.get("input_tokens", 0),
                                   usage.get("output_tokens", 0), cost)
            self._turn_id = None


@dataclass
class Session:
    runtime: Runtime
    store: Any
    recorder: StoreRecorder

    def close(self) -> None:
        if self.runtime.jobs is not None:
            self.runtime.jobs.close()  # background commands end with the session
        close = getattr(self.store, "close", None)
        if close:
            close()


def hook_callbacks(settings: Settings, warn: Callable[[str], None]) -> tuple[Any, Any]:
    """The executor's pre/post-tool hooks from ``[hooks]`` (None when unset)."""
    from swebash_py.agent.hooks import run_post_hooks, run_pre_hooks

    hooks, workspace = settings.hooks, str(settings.workspace)

    def payload(pending: Any) -> dict[str, Any]:
        return {"tool": pending.call.name, "call_id": pending.call.id,
                "arguments": pending.call.parsed_input(), "workspace": workspace}

    async def pre(pending: Any) -> str | None:
        outcome = await run_pre_hooks(hooks.pre_tool, payload(pending), hooks.timeout)
        for warning in outcome.warnings:
            warn(warning)
        return (outcome.reason or "a pre_tool hook said no") if outcome.denied else None

    async def post(pending: Any, result: Any) -> None:
        body = {**payload(pending), "result": result.output, "is_error": result.is_error}
        for warning in await run_post_hooks(hooks.post_tool, body, hooks.timeout):
            warn(warning)

    return (pre if hooks.pre_tool else None), (post if hooks.post_tool else None)


def rules_from(settings: Settings) -> RuleSet:
    try:
        return RuleSet.from_lists(settings.permissions.allow, settings.permissions.deny)
    except ValueError as exc:
        raise ConfigError(f"config error: [permissions]: {exc}") from exc


def sandbox_active(settings: Settings) -> bool:
    """Whether model commands run in a working OS sandbox."""
    from swebash_py.sandbox.runner import available

    return settings.sandbox.mode != "off" and available().ok


def host_rules_from(settings: Settings) -> RuleSet:
    from swebash_py.sandbox.grant import host_rules

    try:
        return host_rules(settings.sandbox.host_allow)
    except ValueError as exc:
        raise ConfigError(f"config error: [sandbox] host_allow: {exc}") from exc


def open_store() -> Any:
    from swebash_py.store import Store

    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return Store(directory / "sessions.db")


def resume_target(store: Any, invocation: Invocation, cwd: str) -> str | None:
    """The session id to continue, if the invocation asks for one."""
    if invocation.session:
        info = store.get_session(invocation.session)
        if info is None:
            raise SwebashError(f"no session '{invocation.session}' (see `ai sessions list`)")
        return str(info.id)
    if invocation.continue_last:
        found = store.latest_session(cwd)
        if found is None:
            raise SwebashError("no earlier session to continue here")
        return str(found)
    return None


def open_session(settings: Settings, invocation: Invocation, *,
                 renderer_suspend: Any = None, asker: Asker | None = None,
                 use_tty: bool = True, on_notice: Callable[[str], None] = lambda _n: None
                 ) -> Session:
    """A runtime with history, store, fitter and approvals, ready for turns."""
    from swebash_py.engine.fitting import make_fitter

    store = open_store()
    cwd = str(settings.workspace)
    session_id = resume_target(store, invocation, cwd)
    history = store.load_messages(session_id) if session_id else []
    recorder = StoreRecorder(store, settings.resolved_model, cwd, session_id)
    if asker is None and use_tty:  # under yolo too: an escalation always asks
        from swebash_py.ui.tty_asker import terminal_asker

        asker = terminal_asker(renderer_suspend)
    approver = PolicyApprover(settings.approval, rules_from(settings), settings.workspace, asker,
                              sandboxed=lambda: sandbox_active(settings),
                              host_allow=host_rules_from(settings),
                              preview_mode=lambda pending, mode: _preview_mode(
                                  pending, mode, settings))
    pre_hook, post_hook = hook_callbacks(settings, on_notice)
    runtime = build_runtime(settings, approver=approver, no_tools=invocation.no_tools,
                            debug=invocation.debug, on_notice=on_notice, history=history,
                            recorder=recorder, session_id=session_id, pre_hook=pre_hook,
                            post_hook=post_hook, checkpoints=recorder)
    runtime.agent._fitter = make_fitter(settings, runtime)
    return Session(runtime, store, recorder)


def _preview_mode(pending: Any, approval_mode: str, settings: Settings) -> str:
    """Whether a call that would ask runs as a preview first (preview.policy)."""
    from swebash_py.preview.policy import preview_mode

    return preview_mode(pending, approval_mode, settings)
