"""Background commands: started by ``run_command(background=true)``, read with
``command_output``, stopped with ``stop_command``, listed by ``/ps``.

* Each command runs through the shell in its own process group (a new
  session), stdin from /dev/null, stdout and stderr merged into one pipe that a
  reader task drains all the time, so the command never blocks on a full pipe.
* What it printed since the last read is kept in a ``Capture`` (first and last
  N bytes, the middle only counted): memory stays bounded however much it
  prints.
* ``stop`` sends SIGTERM to the whole group, then SIGKILL after a grace period.
* Everything stops when the table is closed (the session ends, ``ai`` exits:
  ``close`` also runs at interpreter exit) and when ``ai`` dies: on Linux the
  shell gets a parent-death signal (``process.lifeline``) on which it kills its
  own process group.
* The process is started by the runner a foreground command would run with
  (``sandbox.runner.Runner.start``): the same walls, the same containment; the
  table only reads, watches and stops what it started.

The process helpers (``process``: proc, reaper and secret values) are
imported by what runs or stops a command: a session that starts none (an answer
without tools) needs only the empty table.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from swebash_py.process.lifeline import DEATH_SIGNAL

if TYPE_CHECKING:
    from swebash_py.process.capture import Capture
    from swebash_py.sandbox.runner import ExecRequest, Runner

# $1 is the command. The shell waits for it; told that ``ai`` died, it kills
# its whole process group (itself included).
WRAPPER = f'trap "kill -KILL 0" {DEATH_SIGNAL.name[3:]}; eval "$1" & wait $!'
MAX_RUNNING = 10
MAX_KEPT = 20
GRACE = 3.0
DRAIN = 0.5


@dataclass
class Job:
    """One background command."""

    id: str
    command: str
    proc: asyncio.subprocess.Process
    head: int
    tail: int
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    total: int = 0
    stopped: bool = False
    note: str = ""  # a line the sandbox adds once it ended (settings it removed)
    fresh: Capture = field(init=False)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        from swebash_py.process.capture import Capture

        self.fresh = Capture(self.head, self.tail)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.ended is None

    def take(self) -> tuple[str, int]:
        """The output since the last call, and how many bytes that was. While the
        command runs, an end that could be the start of a secret value waits for
        the next call (the value is redacted whole, never shown in two pieces)."""
        from swebash_py.process.capture import Capture
        from swebash_py.process.values import secret_bytes

        held = self.fresh.hold_back(secret_bytes()) if self.running else b""
        text, size = self.fresh.text(), self.fresh.total - len(held)
        self.fresh = Capture(self.head, self.tail)
        self.fresh.add(held)
        return text, size

    def status(self) -> str:
        took = f"{(self.ended or time.monotonic()) - self.started:.1f} s"
        if self.running:
            return f"running · pid {self.pid} · {took}"
        code = self.proc.returncode
        if self.stopped:
            return f"stopped after {took}"
        if code is not None and code < 0:
            return f"killed by signal {-code} after {took}"
        return f"exited with code {code} after {took}"


class JobTable:
    """The background commands of one session."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._count = 0
        atexit.register(self.close)

    # -- starting and reading ------------------------------------------------

    async def start(self, runner: Runner, request: ExecRequest, command: str) -> Job:
        """Start ``request`` through ``runner`` (``RunnerUnavailable``: it cannot
        start one; nothing ran) and keep it as a job; ``command`` names it."""
        running = [j for j in self._jobs.values() if j.running]
        if len(running) >= MAX_RUNNING:
            raise RuntimeError(f"{MAX_RUNNING} background commands are already running; "
                               "stop one first (stop_command)")
        proc = await runner.start(request)
        self._count += 1
        job = Job(f"bg{self._count}", command, proc, request.head, request.tail)
        job.tasks = [asyncio.create_task(self._pump(job)), asyncio.create_task(self._watch(job))]
        self._jobs[job.id] = job
        self._forget_old()
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id.strip())

    def jobs(self) -> list[Job]:
        return list(self._jobs.values())

    async def wait_for_end(self, job: Job, seconds: float) -> None:
        """Until the command ends, at most ``seconds`` (its output keeps being drained)."""
        if seconds <= 0 or not job.running:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(job.tasks[1]), seconds)

    async def _pump(self, job: Job) -> None:
        from swebash_py.process.proc import pump

        stream = job.proc.stdout
        assert stream is not None

        def keep(data: bytes) -> None:
            job.fresh.add(data)
            job.total += len(data)
        await pump(stream, keep)

    async def _watch(self, job: Job) -> None:
        """Notice the exit; drain the pipe briefly; kill what the command left behind."""
        from swebash_py.process.proc import end_leftovers

        delay = 0.005
        while job.proc.returncode is None:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.1)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(job.tasks[0]), DRAIN)
        end_leftovers(job.pid)
        job.ended = time.monotonic()

    def _forget_old(self) -> None:
        done = [j for j in self._jobs.values() if not j.running]
        for job in done[:max(0, len(self._jobs) - MAX_KEPT)]:
            del self._jobs[job.id]

    # -- stopping ---------------------------------------------------------------

    async def stop(self, job: Job) -> None:
        """SIGTERM to the group, SIGKILL after ``GRACE`` seconds; waits for the end."""
        if not job.running:
            return
        from swebash_py.process.proc import kill_group_tree, signal_group

        job.stopped = True
        signal_group(job.pid, signal.SIGTERM)
        deadline = time.monotonic() + GRACE
        while _group_alive(job.pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        kill_group_tree(job.pid)
        await asyncio.wait(job.tasks, timeout=GRACE + DRAIN + 1)

    def close(self) -> None:
        """Stop everything now (synchronous: session end, interpreter exit)."""
        live = [j for j in self._jobs.values() if j.running or _group_alive(j.pid)]
        if not live:
            return
        from swebash_py.process.proc import kill_group_tree, signal_group

        for job in live:
            job.stopped = True
            signal_group(job.pid, signal.SIGTERM)
        deadline = time.monotonic() + 1.0
        while any(_group_alive(j.pid) for j in live) and time.monotonic() < deadline:
            time.sleep(0.02)
        for job in live:
            kill_group_tree(job.pid)
            for task in job.tasks:
                with contextlib.suppress(RuntimeError):  # at exit the loop may be closed
                    task.cancel()

    def table(self) -> list[str]:
        """One line per command, for /ps."""
        return [f"{j.id:<5} {j.status():<40} {_short(j.command)}" for j in self._jobs.values()]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _has_live_member(pgid)


def _has_live_member(pgid: int) -> bool:
    """killpg(0) also succeeds for a group of zombies; look for a live member."""
    from swebash_py.process.reaper import live_processes

    try:
        return any(group == pgid for _pid, _ppid, group in live_processes())
    except OSError:
        return True


def _short(command: str) -> str:
    line = " ".join(command.split())
    return line if len(line) <= 60 else line[:59] + "…"
