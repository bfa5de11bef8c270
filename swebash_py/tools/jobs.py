"""command_output and stop_command: reading and stopping background commands.

The commands are started by ``run_command(background=true)``
(``start_background``); the table of them lives in ``ToolContext.jobs``.
"""

from __future__ import annotations

import atexit
import math
from typing import Annotated

from msgspec import Meta

from swebash_py.errors import ToolFailed
from swebash_py.fs.writer import remove_if_same
from swebash_py.sandbox import runner as sandbox_runner
from swebash_py.sandbox.notes import status_note
from swebash_py.sandbox.policy import SandboxPolicy
from swebash_py.sandbox.runner import ExecRequest
from swebash_py.sandbox.settings_guard import sweep, sweep_note
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.background import Job, JobTable
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult
from swebash_py.tools.command import command_env, pick_shell, sandbox_policy, strip_ansi

MAX_WAIT = 60.0


def _table(ctx: ToolContext) -> JobTable:
    if ctx.jobs is None:
        raise ToolFailed("background commands are not available here")
    table: JobTable = ctx.jobs
    return table


def _job(ctx: ToolContext, job_id: str) -> Job:
    job = _table(ctx).get(job_id)
    if job is None:
        known = ", ".join(j.id for j in _table(ctx).jobs()) or "none"
        raise ToolFailed(f"no background command {job_id!r} (known: {known})")
    return job


async def start_background(command: str, ctx: ToolContext) -> ToolResult:
    """``run_command(background=true)``: start it, return its id at once. It starts
    through the runner a foreground command would run with (``ctx.runner``, the
    seam), so under the same sandbox with the same grant; outside (escalated,
    ``host_allow``, ``off``) under the reaper, so it dies with ``ai``."""
    half = max(2_000, ctx.max_output_chars // 2 - 200)
    policy = sandbox_policy(ctx)
    request = ExecRequest([pick_shell(), "-c", background_script(), "swebash-bg", command],
                          policy, timeout=math.inf, extra_env=ctx.env, head=half, tail=half,
                          plain_env=command_env(extra=ctx.env))
    runner = ctx.runner or sandbox_runner.DIRECT
    try:
        job = await _table(ctx).start(runner, request, command)
    except RuntimeError as exc:
        raise ToolFailed(str(exc)) from exc
    except OSError as exc:
        raise ToolFailed(f"could not start the shell: {exc}") from exc
    if policy.mode == "workspace-write" and runner.writes_land:
        _SettingsSweep(job, policy, _table(ctx)).arm()
    where = (status_note(policy) if policy.mode != "off" else
             "[runs outside the sandbox, as approved]" if ctx.grant == "host" else "")
    return ToolResult(
        f"Started in the background as {job.id} (pid {job.pid}). Read what it prints with "
        f'command_output(id="{job.id}") (wait=N waits up to N seconds for it to end); stop it with '
        f'stop_command(id="{job.id}"). It runs until stopped or the session ends.'
        + (f"\n{where}" if where else ""),
        metadata={"id": job.id, "pid": job.pid, "background": True, "sandbox": policy.mode})


class _SettingsSweep:
    """``settings_guard.sweep`` once the background command ended: when its watch
    ends (it exited or was stopped), and at exit after the table stopped it."""

    def __init__(self, job: Job, policy: SandboxPolicy, table: JobTable) -> None:
        self.job, self.policy, self.table, self.done = job, policy, table, False

    def arm(self) -> None:
        self.job.tasks[1].add_done_callback(lambda _task: self.run())
        atexit.register(self.at_exit)  # runs before the table's own close (LIFO)

    def at_exit(self) -> None:
        self.table.close()
        self.run()

    def run(self) -> None:
        if self.done:
            return
        self.done = True
        atexit.unregister(self.at_exit)
        removed = sweep(self.policy, remove_if_same)
        if removed:
            self.job.note = sweep_note(removed, self.policy.workspace)


def background_script() -> str:
    from swebash_py.tools.background import WRAPPER

    return WRAPPER


def _report(job: Job, text: str, size: int, prefix: str = "") -> str:
    body = strip_ansi(text).rstrip("\n") if size else "(no new output)"
    total = f"{job.total:,} bytes in all"
    note = f"\n{job.note}" if job.note and not job.running else ""
    return f"{prefix}[{job.id} · {job.status()} · {total}]\n{body}{note}"


class CommandOutputArgs(ToolArgs):
    id: Annotated[str, Meta(min_length=1, description="The id run_command returned, e.g. bg1.")]
    wait: Annotated[float, Meta(ge=0, le=MAX_WAIT, description=(
        "Seconds to wait for the command to end before returning (default 0: return at "
        f"once; at most {MAX_WAIT:g}). Returns as soon as it ends."))] = 0


class CommandOutput(Tool[CommandOutputArgs]):
    name = "command_output"
    approval = "allow"
    description = (
        "The new output of a background command (started with run_command background=true) "
        "since the last call, and whether it still runs (with its exit code once it ended). "
        "Long output keeps its beginning and end, with a marker saying how much was cut."
    )
    Args = CommandOutputArgs
    read_only = True

    def preview(self, args: CommandOutputArgs, ctx: ToolContext) -> Preview:
        return Preview(summary=f"command_output {args.id}")

    async def run(self, args: CommandOutputArgs, ctx: ToolContext) -> ToolResult:
        job = _job(ctx, args.id)
        # never longer than the executor lets a tool run (command_timeout + 15 s)
        await _table(ctx).wait_for_end(job, min(args.wait, ctx.command_timeout))
        text, size = job.take()
        return ToolResult(_report(job, text, size),
                          metadata={"id": job.id, "running": job.running,
                                    "exit_code": job.proc.returncode, "bytes": size})


class StopCommandArgs(ToolArgs):
    id: Annotated[str, Meta(min_length=1,
                            description="The id of the background command to stop.")]


class StopCommand(Tool[StopCommandArgs]):
    name = "stop_command"
    approval = "allow"
    description = ("Stop a background command and everything it started (SIGTERM, then "
                   "SIGKILL after 3 s). Returns its last output.")
    Args = StopCommandArgs

    def preview(self, args: StopCommandArgs, ctx: ToolContext) -> Preview:
        return Preview(summary=f"stop_command {args.id}")

    async def run(self, args: StopCommandArgs, ctx: ToolContext) -> ToolResult:
        job = _job(ctx, args.id)
        was_running = job.running
        await _table(ctx).stop(job)
        text, size = job.take()
        prefix = "" if was_running else "(it had already ended) "
        return ToolResult(_report(job, text, size, prefix),
                          metadata={"id": job.id, "exit_code": job.proc.returncode})
