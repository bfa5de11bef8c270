"""``[hooks] pre_tool`` / ``post_tool``: shell commands told about each call.

Each hook gets the call as JSON on stdin (``event``, ``tool``, ``call_id``,
``arguments``, ``workspace``, and ``result`` after the call). A pre-tool hook
denies with exit code 2 (stderr is the reason) or with
``{"decision": "deny", "reason": "..."}`` on stdout. Other failures and
timeouts are reported as warnings and never block.

A hook is started by the one process owner (``process/proc.py``) under the
reaper's supervisor, so a timed-out or cancelled hook is ended with its whole
process tree, and one still running when ``ai`` is killed (SIGKILL included)
dies with it; what a hook that ended left running (a notifier) keeps running:
the hook is the user's program. stdout and stderr are kept bounded; a pre-tool
hook whose stdout was cut cannot be judged and denies. Its environment is the
user's, whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from swebash_py.engine.messages import json_object
from swebash_py.process import reaper
from swebash_py.process.proc import run_process

if TYPE_CHECKING:
    from swebash_py.agent.executor import PostHook, PreHook
    from swebash_py.approvals.decision import PendingCall
    from swebash_py.tools.base import ToolResult

DENY_EXIT = 2
KEEP_BYTES = 64 * 1024  # of stdout and of stderr, first and last each: a verdict is short
GRACE = 0.5  # seconds between SIGTERM and SIGKILL for a timed-out hook


@dataclass
class HookOutcome:
    """What the pre-tool hooks said: denied (with a reason) or not, and warnings."""

    denied: bool = False
    reason: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Run:
    code: int | None  # None: timed out
    stdout: str
    stderr: str
    stdout_cut: bool = False  # longer than we keep: a verdict in it cannot be read


async def run_pre_hooks(commands: list[str], payload: dict[str, Any],
                        timeout: float) -> HookOutcome:
    """Run the pre-tool hooks in order; the first denial stops the rest."""
    outcome = HookOutcome()
    data = json.dumps({**payload, "event": "pre_tool"}, default=str).encode()
    for command in commands:
        run = await _run(command, data, timeout, payload.get("workspace"))
        verdict = _json_decision(run.stdout)
        if verdict is not None and verdict.get("decision") == "deny":
            return HookOutcome(True, str(verdict.get("reason") or f"denied by hook: {command}"),
                               outcome.warnings)
        if run.code == DENY_EXIT:
            reason = run.stderr.strip() or f"denied by hook: {command}"
            return HookOutcome(True, reason, outcome.warnings)
        if run.stdout_cut:  # fail closed: a deny may be in what was cut
            return HookOutcome(True, f"hook output too large to judge ({command})",
                               outcome.warnings)
        if warning := _warning(command, run, timeout):
            outcome.warnings.append(warning)
    return outcome


async def run_post_hooks(commands: list[str], payload: dict[str, Any],
                         timeout: float) -> list[str]:
    """Run the post-tool hooks; they cannot change anything, only warn."""
    data = json.dumps({**payload, "event": "post_tool"}, default=str).encode()
    warnings = []
    for command in commands:
        run = await _run(command, data, timeout, payload.get("workspace"))
        if warning := _warning(command, run, timeout):
            warnings.append(warning)
    return warnings


def _json_decision(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    return json_object(text) if text.startswith("{") else None


def _warning(command: str, run: _Run, timeout: float) -> str | None:
    if run.code is None:
        return f"hook timed out after {timeout:g} s and was stopped: {command}"
    if run.code != 0:
        detail = run.stderr.strip().splitlines()[-1:] or [""]
        return f"hook failed (exit {run.code}): {command}" + (
            f": {detail[0][:200]}" if detail[0] else "")
    return None


async def _run(command: str, data: bytes, timeout: float, cwd: Any) -> _Run:
    workdir = str(cwd) if cwd and os.path.isdir(str(cwd)) else "."
    res = await run_process(reaper.wrap(["/bin/sh", "-c", command], keep_leftovers=True),
                            cwd=workdir,
                            env=os.environ, timeout=timeout, input=data, split_stderr=True,
                            head=KEEP_BYTES, tail=KEEP_BYTES, grace=GRACE, keep_leftovers=True)
    if res.timed_out:
        return _Run(None, "", "")
    return _Run(res.returncode, res.output, res.errors, stdout_cut=res.cut_bytes > 0)


def hook_callbacks(hooks: Any, workspace: str, warn: Callable[[str], None]
                   ) -> tuple[PreHook | None, PostHook | None]:
    """The executor's pre/post-tool hooks from ``[hooks]`` (None when unset)."""

    def payload(pending: PendingCall) -> dict[str, Any]:
        return {"tool": pending.call.name, "call_id": pending.call.id,
                "arguments": pending.call.parsed_input(), "workspace": workspace}

    async def pre(pending: PendingCall) -> str | None:
        outcome = await run_pre_hooks(hooks.pre_tool, payload(pending), hooks.timeout)
        for warning in outcome.warnings:
            warn(warning)
        return (outcome.reason or "a pre_tool hook said no") if outcome.denied else None

    async def post(pending: PendingCall, result: ToolResult) -> None:
        body = {**payload(pending), "result": result.output, "is_error": result.is_error}
        for warning in await run_post_hooks(hooks.post_tool, body, hooks.timeout):
            warn(warning)

    return (pre if hooks.pre_tool else None), (post if hooks.post_tool else None)
