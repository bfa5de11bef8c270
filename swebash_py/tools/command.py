"""run_command: a shell command in the workspace, bounded in time and output.

The command runs through the user's shell (``$SHELL`` when it is bash, zsh or
sh, else /bin/bash) with ``-c``, in the workspace, in a new session, with
stdin from /dev/null and a non-interactive environment from which API keys and
tokens are removed. It runs through the runner its context carries
(``sandbox.runner.Runner``: the ordinary sandbox, or the preview's overlay,
as the executor chose from the call's plan); it never picks one itself.

Outcome policy: a non-zero exit status is a normal result (``is_error`` is
false; the status line says ``exit code N``), because a failing test or grep
is information for the model. A timeout, or a failure to start, is an error
result. Death by a signal is stated plainly (``killed by signal N (NAME)``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import signal
from collections.abc import Mapping
from typing import Annotated

from msgspec import Meta

from swebash_py.errors import ToolFailed
from swebash_py.fs.workspace import (
    mentions_protected,
    mentions_secret,
    real_workspace,
    resolve,
)
from swebash_py.fs.writer import remove_if_same
from swebash_py.process.proc import ProcResult
from swebash_py.process.values import is_secret_name
from swebash_py.sandbox import runner as sandbox_runner
from swebash_py.sandbox.build import build_policy
from swebash_py.sandbox.notes import access_note, status_note
from swebash_py.sandbox.policy import Grant, SandboxPolicy
from swebash_py.sandbox.runner import ExecRequest
from swebash_py.sandbox.settings_guard import sweep, sweep_note
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult

NONINTERACTIVE = {
    "PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb", "NO_COLOR": "1", "CLICOLOR": "0",
    "GIT_TERMINAL_PROMPT": "0",
}
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC strings
    r"|\x1b[@-Z\\-_]|\x1b[ -/][@-~]?"  # other two-byte escapes
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"  # stray control characters, lone ESC
)


def pick_shell(environ: Mapping[str, str] | None = None) -> str:
    """``$SHELL`` when it is bash, zsh or sh (and exists), else /bin/bash (or sh)."""
    shell = (environ if environ is not None else os.environ).get("SHELL", "")
    if os.path.basename(shell) in {"bash", "zsh", "sh"} and os.access(shell, os.X_OK):
        return shell
    return "/bin/bash" if os.access("/bin/bash", os.X_OK) else (shutil.which("sh") or "/bin/sh")


def command_env(base: Mapping[str, str] | None = None,
                extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: ours) without secrets, plus the non-interactive settings."""
    env = {k: v for k, v in (base if base is not None else os.environ).items()
           if not is_secret_name(k)}
    env.update(NONINTERACTIVE)
    env.update(extra or {})
    return env


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences; keep only the last ``\\r``-overwritten segment."""
    text = _ANSI.sub("", text)
    if "\r" not in text:
        return text
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rsplit("\r", 1)[-1] if "\r" in line else line for line in lines)


def status_line(res: ProcResult, timeout: float) -> str:
    took = f"{res.duration:.2f} s"
    if res.timed_out:
        return (f"[timed out after {timeout:g} s: the command and its child processes were "
                f"killed · {took}]")
    if res.signal is not None:
        try:
            name = signal.Signals(res.signal).name
        except ValueError:
            name = "unknown"
        return f"[killed by signal {res.signal} ({name}) · {took}]"
    return f"[exit code {res.returncode} · {took}]"


def format_result(res: ProcResult, timeout: float) -> str:
    body = strip_ansi(res.output).rstrip("\n")
    note = ("\n[background processes still running after the command ended were killed]"
            if res.leftovers_killed and not res.timed_out else "")
    return f"{body or '(no output)'}{note}\n{status_line(res, timeout)}"


class RunCommandArgs(ToolArgs):
    command: Annotated[str, Meta(min_length=1, description=(
        "The shell command line to run (bash syntax), in the workspace directory. It is "
        "non-interactive: stdin is empty and there is no terminal, so pass flags such as "
        "-y or --no-pager instead of expecting prompts."))]
    timeout: Annotated[float, Meta(ge=0.1, description=(
        "Seconds before the command is killed. Default and maximum: the configured "
        "command timeout (120 s unless configured otherwise)."))] | None = None
    background: Annotated[bool, Meta(description=(
        "Start it in the background (servers, watchers, long builds) and return an id at "
        "once; read its output with command_output and stop it with stop_command."))] = False
    escalate: Annotated[bool, Meta(description=(
        "Ask the user to run this command outside the sandbox: for commands about the "
        "host (its processes, ports, services, logs) or that failed for lack of "
        "access."))] | None = None
    workdir: Annotated[str, Meta(min_length=1, description=(
        "Directory inside the workspace to run in (instead of `cd dir &&`). Default: "
        "the workspace."))] | None = None
    description: Annotated[str, Meta(max_length=200, description=(
        "What the command is for, in 5-10 words; shown to the user when asked."))] | None = None


class RunCommand(Tool[RunCommandArgs]):
    name = "run_command"
    kind = "execute"
    command_arg = "command"  # rules, the judgement and host_allow read this argument
    escalate_arg = "escalate"
    previews = True  # the executor may run it with the preview's runner (agent.execution)
    description = (
        "Run a shell command in the workspace and return its combined stdout and stderr, "
        "followed by a status line with the exit code and duration (a non-zero exit code is "
        "reported, not treated as an error). Long output keeps its beginning and end, with a "
        "marker saying how much was cut. Processes it leaves running are killed when the "
        "command finishes: start servers and watchers with background=true instead. "
        "Commands that read stdin, need a terminal, or talk to the network cannot work "
        "here and cannot be re-run meaningfully in the sandbox. Commands run in a sandbox: "
        "their own processes only (ps, ss, lsof, systemctl show a partial view: no host "
        "processes or ports), no network, no unix sockets (docker, agents), secrets hidden, "
        "and usually a read-only filesystem. "
        "For the host's processes, ports, services or logs, or after a failure for lack of "
        "access, call again with escalate: true (the user is asked)."
    )
    Args = RunCommandArgs

    def preview(self, args: RunCommandArgs, ctx: ToolContext) -> Preview:
        first = args.command.strip().splitlines()[0] if args.command.strip() else ""
        warnings = [] if args.timeout is None else [f"timeout {self.timeout(args, ctx):g} s"]
        if args.background:
            warnings = ["runs in the background until stopped or the session ends"]
        script(args, ctx)  # a workdir outside the workspace fails now, before any question
        return Preview(summary=f"run_command {first}", detail=args.command,
                       detail_kind="command", paths=[real_workspace(ctx.workspace)],
                       sensitive=mentions_secret(args.command),
                       protected=mentions_protected(args.command), warnings=warnings)

    @staticmethod
    def timeout(args: RunCommandArgs, ctx: ToolContext) -> float:
        return min(args.timeout or ctx.command_timeout, ctx.command_timeout)

    async def run(self, args: RunCommandArgs, ctx: ToolContext) -> ToolResult:
        if args.background:
            from swebash_py.tools.jobs import start_background

            return await start_background(script(args, ctx), ctx)
        limit = self.timeout(args, ctx)
        half = max(2_000, ctx.max_output_chars // 2 - 200)
        policy = sandbox_policy(ctx)
        request = ExecRequest([pick_shell(), "-c", script(args, ctx)], policy, timeout=limit,
                              on_output=ctx.progress, extra_env=ctx.env, head=half, tail=half,
                              plain_env=command_env(extra=ctx.env))
        runner = ctx.runner or sandbox_runner.DIRECT
        try:
            res = await runner.run(request)
        except OSError as exc:
            raise ToolFailed(f"could not start the shell: {exc}") from exc
        finally:  # every process of the run is dead now
            removed = sweep(policy, remove_if_same) if runner.writes_land else []
        result = command_result(res, limit, policy, ctx)
        if removed:
            result.output += "\n" + sweep_note(removed, policy.workspace)
        return result


def script(args: RunCommandArgs, ctx: ToolContext) -> str:
    """The shell script to run: the command, in ``workdir`` when one is given.
    The directory goes through the one path policy (``workspace.resolve``) and must
    be inside the workspace: the sandbox's walls are drawn around the workspace,
    and a question about a command says where it runs only by saying so here."""
    if args.workdir is None:
        return args.command
    ws = real_workspace(ctx.workspace)
    rp = resolve(args.workdir, ws)
    if rp.outside:
        raise ToolFailed(f"workdir {args.workdir} is outside the workspace ({ws}); commands "
                         "run inside it (escalate to run a command about the host)")
    if not rp.path.is_dir():
        raise ToolFailed(f"workdir {args.workdir}: no such directory in the workspace")
    return f"cd -- {shlex.quote(str(rp.path))} || exit 1\n{args.command}"


def command_result(res: ProcResult, limit: float, policy: SandboxPolicy,
                   ctx: ToolContext) -> ToolResult:
    """The result text and metadata of a finished command."""
    meta = {"exit_code": res.returncode, "duration": round(res.duration, 3),
            "timed_out": res.timed_out, "signal": res.signal,
            "output_bytes": res.total_bytes, "cut_bytes": res.cut_bytes,
            "sandbox": policy.mode}
    text = format_result(res, limit)
    if policy.mode != "off":
        note = access_note(res.output, policy) if res.returncode != 0 else None
        text += "\n" + status_note(policy) + (f"\n{note}" if note else "")
    elif ctx.grant == "host":
        text += "\n[ran outside the sandbox, as approved]"
    elif _configured_mode(ctx) != "off":
        text += "\n[no sandbox is available here (see `ai doctor`): ran unconfined]"
    return ToolResult(text, is_error=res.timed_out, metadata=meta)


def sandbox_policy(ctx: ToolContext) -> SandboxPolicy:
    """The walls for this call; refuses (``ToolFailed``) rather than run weaker
    than an explicitly configured mode."""
    policy = build_policy(ctx.sandbox, _grant(ctx), ctx.workspace)
    if policy.mode == "off":
        return policy
    found = sandbox_runner.available()
    if found.ok:
        return policy
    if ctx.sandbox.mode != "auto":
        raise ToolFailed(f"the sandbox ({ctx.sandbox.mode}) is not available: "
                         f"{found.detail}; see `ai doctor`")
    # auto without a sandbox: the approver asked for everything but plain reads
    return dataclasses.replace(policy, mode="off")


def _grant(ctx: ToolContext) -> Grant:
    """The context's grant; anything unknown is the narrowest (fail closed)."""
    return "host" if ctx.grant == "host" else "write" if ctx.grant == "write" else "read"


def _configured_mode(ctx: ToolContext) -> str:
    return str(ctx.sandbox.mode)
