"""The one execution seam: ``Runner.run(ExecRequest) -> ProcResult``.

A tool that runs a process describes it as an ``ExecRequest`` (argv, the
sandbox policy, limits, where output goes) and hands it to the ``Runner`` its
context carries; it never picks how it runs. ``SandboxRunner`` runs it with
bubblewrap, sandbox-exec or "none" behind it (``Backend``, chosen once per
process): a backend turns an argv and a policy into the argv and environment
to exec (``launch``); the runner runs that through ``process.proc.run_process``
(own process group, bounded capture, timeout). The overlay preview is one more
``Runner`` (``preview.run.PreviewRunner``): the same result, plus the change set
it caught. The executor picks the runner from the call's execution plan.

A background command goes through the same seam: ``Runner.start(ExecRequest)``
starts it under the same walls and containment as ``run`` would (the sandbox;
outside it, the reaper and a cgroup of its own) and returns the started
process at once; the caller (``tools.background.JobTable``) drains, reads and
stops it. A runner that cannot start one (the preview's: its overlay lives
only as long as one run) raises ``RunnerUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from swebash_py.process import lifeline, proc, reaper
from swebash_py.process.proc import ProcResult, run_process
from swebash_py.sandbox import bwrap, seatbelt, seccomp
from swebash_py.sandbox.env import sandbox_env
from swebash_py.sandbox.policy import SandboxPolicy


@dataclass(frozen=True)
class Launch:
    """What to exec; ``fds`` must be passed to the child, then closed (``close``)."""

    argv: list[str]
    env: dict[str, str]
    fds: tuple[int, ...] = ()

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)


@dataclass(frozen=True)
class Availability:
    ok: bool
    name: str
    detail: str  # the version when ok, else why not and what to install


@dataclass(frozen=True)
class ExecRequest:
    """One process to run: what, under which walls, for how long, output where.

    ``extra_env`` is added to the sandbox's environment; ``plain_env`` is the
    whole environment when the policy is ``off`` (the run is outside)."""

    argv: list[str]
    policy: SandboxPolicy
    timeout: float
    on_output: Callable[[str], None] = lambda _t: None
    extra_env: Mapping[str, str] | None = None
    head: int = 15_000
    tail: int = 15_000
    plain_env: Mapping[str, str] | None = None


class RunnerUnavailable(Exception):
    """This runner cannot run this request (nothing ran; the reason is one
    line): the caller may choose another runner."""


class Runner(Protocol):
    """The seam every process a tool runs for the model goes through.

    ``writes_land``: whether the run's writes land in the workspace (the
    ordinary runner), or are caught for a question first (a preview's): what
    the settings guard must sweep after a run (``settings_guard.sweep``)."""

    writes_land: bool

    async def run(self, request: ExecRequest) -> ProcResult: ...

    async def start(self, request: ExecRequest) -> asyncio.subprocess.Process:
        """Start ``request`` in the background (its ``timeout``, ``on_output``,
        ``head``/``tail`` are the caller's business): a process leading its own
        group, stdout and stderr merged into one pipe the caller must drain
        (``proc.pump``), ended with ``proc.kill_group_tree``/``end_leftovers``."""
        ...


class Backend(Protocol):
    name: str

    def availability(self) -> Availability: ...

    def launch(self, argv: list[str], policy: SandboxPolicy,
               extra_env: Mapping[str, str] | None = None) -> Launch: ...


class Bubblewrap:
    name = "bubblewrap"

    def availability(self) -> Availability:
        found = bwrap.probe()
        return Availability(found.ok, self.name, found.version if found.ok else found.reason)

    def launch(self, argv: list[str], policy: SandboxPolicy,
               extra_env: Mapping[str, str] | None = None) -> Launch:
        path = bwrap.probe().path or "bwrap"
        fd = seccomp.filter_fd() if seccomp.supported() else None
        # bwrap's own environment is the sandbox's: its pid 1 shows it in /proc
        return Launch(bwrap.bwrap_argv(policy, argv, path, seccomp_fd=fd),
                      sandbox_env(extra=extra_env), () if fd is None else (fd,))


class SandboxExec:
    name = "sandbox-exec"

    def availability(self) -> Availability:
        if os.access(seatbelt.SANDBOX_EXEC, os.X_OK):
            return Availability(True, self.name, seatbelt.SANDBOX_EXEC)
        return Availability(False, self.name, f"{seatbelt.SANDBOX_EXEC} is missing")

    def launch(self, argv: list[str], policy: SandboxPolicy,
               extra_env: Mapping[str, str] | None = None) -> Launch:
        tmp = Path(tempfile.mkdtemp(prefix="swebash-sbx-"))
        env = sandbox_env(extra={**(extra_env or {}), "TMPDIR": str(tmp)})
        return Launch(seatbelt.seatbelt_argv(policy, argv, tmp), env)


class Unsupported:
    name = "none"

    def availability(self) -> Availability:
        return Availability(False, self.name,
                            f"no OS sandbox is supported on {sys.platform} "
                            "(Linux: bubblewrap; macOS: sandbox-exec)")

    def launch(self, argv: list[str], policy: SandboxPolicy,
               extra_env: Mapping[str, str] | None = None) -> Launch:
        raise RuntimeError("no sandbox available")


@functools.lru_cache(maxsize=1)
def backend() -> Backend:
    """The platform's backend (its availability is probed lazily, once)."""
    if sys.platform.startswith("linux"):
        return Bubblewrap()
    if sys.platform == "darwin":
        return SandboxExec()
    return Unsupported()


def available() -> Availability:
    return backend().availability()


async def run(argv: list[str], policy: SandboxPolicy, *, timeout: float,
              on_output: Callable[[str], None] = lambda _t: None,
              extra_env: Mapping[str, str] | None = None,
              head: int = 15_000, tail: int = 15_000,
              plain_env: Mapping[str, str] | None = None,
              chosen: Backend | None = None) -> ProcResult:
    """Run ``argv`` in the workspace under ``policy`` (see ``walls``)."""
    launch, outside = walls(argv, policy, extra_env, plain_env, chosen)
    try:
        res = await run_process(launch.argv, cwd=policy.workspace, env=launch.env,
                                timeout=timeout, on_output=on_output, head=head, tail=tail,
                                pass_fds=launch.fds, contain=outside)
    finally:
        launch.close()
    if not outside and 128 < res.returncode <= 128 + 64:  # a child's signal, as 128+N
        return dataclasses.replace(res, returncode=128 - res.returncode)
    return res


def walls(argv: list[str], policy: SandboxPolicy, extra_env: Mapping[str, str] | None,
          plain_env: Mapping[str, str] | None,
          chosen: Backend | None) -> tuple[Launch, bool]:
    """What to exec for ``policy``, and whether it runs outside the sandbox: then
    (``off``) with ``plain_env``, under the reaper and in a cgroup of its own, so
    nothing it starts outlives the command or ``ai``; else the backend's launch."""
    if policy.mode == "off":
        return Launch(reaper.wrap(argv), dict(plain_env or {})), True
    return (chosen or backend()).launch(argv, policy, extra_env), False


class SandboxRunner:
    """The ordinary runner: the request's policy says the walls (``off``: none)."""

    writes_land = True

    def __init__(self, chosen: Backend | None = None) -> None:
        self._chosen = chosen

    async def run(self, request: ExecRequest) -> ProcResult:
        return await run(request.argv, request.policy, timeout=request.timeout,
                         on_output=request.on_output, extra_env=request.extra_env,
                         head=request.head, tail=request.tail, plain_env=request.plain_env,
                         chosen=self._chosen)

    async def start(self, request: ExecRequest) -> asyncio.subprocess.Process:
        """Under the same walls as ``run``; it also dies with ``ai`` (``lifeline``)."""
        launch, outside = walls(request.argv, request.policy, request.extra_env,
                                request.plain_env, self._chosen)
        try:
            return await proc.start(launch.argv, cwd=request.policy.workspace, env=launch.env,
                                    merge_stderr=True, pass_fds=launch.fds, contain=outside,
                                    preexec_fn=lifeline.parent_death_hook())
        finally:
            launch.close()  # the child holds its own copy (bwrap reads it at once)


DIRECT = SandboxRunner()  # what a call runs with unless its plan says otherwise
