"""The one owner of the tools' child processes: spawning, pipes, kill, reaping.

Every process a tool starts (``run_command`` through the sandbox's runner,
background commands, ripgrep for ``search_files``) is spawned by ``start`` and
ended by ``terminate``/``kill_group_tree``, so the same rules hold for all:

* each child leads its own process group (a new session), stdin /dev/null;
* its pipes are read all the time (``pump``), whatever the caller still
  wants: past a cap the bytes are counted and dropped, never left in the pipe,
  so a child can never block on a full pipe and miss its own end;
* ``run_process`` keeps the first and last N bytes in one ``Capture`` (the
  middle only counted, so ``yes`` cannot grow memory) and passes decoded text to
  ``on_output`` through a ``Throttle`` (at most one call per 50 ms, the newest
  8 KiB kept);
* on timeout the group gets SIGTERM, then SIGKILL after ``grace`` seconds
  (``terminate``);
* reaping never waits on a pipe (``wait_exit`` polls the exit status that
  asyncio's child watcher sets; ``proc.wait()`` also waits for EOF on the
  pipes, which a paused transport or a background child can withhold forever);
* once the main process has exited, the pipes are drained for ``drain``
  seconds, then the rest of the group (``sleep 60 &``) is killed and reading
  stops: nothing hangs, nothing survives (a process that left the group with
  ``setsid`` is found through the process tree: ``kill_group_tree``);
* a command outside the sandbox lives in a cgroup of its own where one can
  be made (``cgroups``; inside, the sandbox's pid namespace does that):
  ending it ends everything in it, setsid and double forks included, even
  when the command killed its supervisor; where none can be made, ``ai``
  becomes a child subreaper and kills what it adopted when it exits. Not for
  every child: joining a cgroup before exec costs ~3-6 ms a spawn (no vfork,
  and the kernel's cgroup migration);
* cancellation kills the group too, and the transport is closed while the
  loop runs (``release``).

Not only the tools': the ``[hooks]`` commands and the REPL's ``!command`` are
started here too (under ``reaper.wrap``, ``contain=True``; the user's own environment), so
they die with ``ai`` the same way. ``input`` feeds stdin (a hook's JSON);
``terminal`` (``!command`` on a terminal) gives the child a pseudo-terminal
as stdio and controlling terminal instead of pipes.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import contextlib
import fcntl
import os
import signal
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from swebash_py.process import cgroups
from swebash_py.process.capture import Capture as Capture  # re-exported: one import for callers
from swebash_py.process.capture import Throttle
from swebash_py.process.reaper import kill_tree

CHUNK = 65536
_cgroup_of: dict[int, str] = {}  # leader pid -> its cgroup, until ended
_adopting = False


@dataclass
class ProcResult:
    returncode: int
    timed_out: bool
    duration: float
    output: str
    total_bytes: int
    cut_bytes: int
    cut_lines: int
    leftovers_killed: bool = False
    errors: str = ""  # stderr, when asked for apart (``split_stderr``)

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode < 0 else None


async def pump(stream: asyncio.StreamReader, sink: Callable[[bytes], None]) -> None:
    """Read ``stream`` to its end, every chunk to ``sink``: the one reading loop,
    so no child is ever left writing into a pipe nobody reads."""
    while data := await stream.read(CHUNK):
        sink(data)


async def _pump(stream: asyncio.StreamReader, capture: Capture, throttle: Throttle) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def sink(data: bytes) -> None:
        capture.add(data)
        throttle.feed(decoder.decode(data))
    await pump(stream, sink)
    throttle.feed(decoder.decode(b"", final=True))


def signal_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to the process group; ignore a group that is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def kill_group_tree(pgid: int) -> None:
    """SIGKILL the group and every descendant of its leader (a reaper's orphans
    included: it cannot clean up after SIGKILL), and all in its cgroup."""
    kill_tree(pgid)
    signal_group(pgid, signal.SIGKILL)
    end_cgroup(pgid)


def end_leftovers(pid: int) -> None:
    """After the leader ended: SIGKILL what it left running, in its group and,
    setsid or double fork, in its cgroup (a killed supervisor's orphans too)."""
    signal_group(pid, signal.SIGKILL)
    end_cgroup(pid)


def end_cgroup(pid: int) -> None:
    path = _cgroup_of.pop(pid, None)
    if path is not None:
        cgroups.kill(path)


def _joining(path: str | None, then: Callable[[], None] | None) -> Callable[[], None] | None:
    """The child's last step before exec: into its cgroup, then ``then``."""
    if path is None:
        return then

    def hook() -> None:
        cgroups.join(path)
        if then is not None:
            then()
    return hook


def _take_terminal() -> None:
    """In the child, before exec: its stdin (a pty's slave) becomes the new
    session's controlling terminal, so the pty's Ctrl-C and job control reach it."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _then(first: Callable[[], None], then: Callable[[], None] | None) -> Callable[[], None]:
    def both() -> None:
        first()
        if then is not None:
            then()
    return both


def _adopt_orphans() -> None:
    """Without a cgroup: make ``ai`` a child subreaper, so what a killed
    supervisor orphaned is ours, not init's, and is killed when we exit."""
    global _adopting
    if _adopting or not sys.platform.startswith("linux"):
        return
    _adopting = True
    import ctypes  # here: only where no cgroup could be made

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        atexit.register(kill_tree, os.getpid())


async def wait_exit(proc: asyncio.subprocess.Process, seconds: float) -> bool:
    """Whether the process exits within ``seconds``.

    Not ``proc.wait()``: it wakes only once every pipe has closed too, which a
    background child can withhold forever, and so can a reader that paused its
    transport (a full buffer nobody reads never sees the EOF). The exit status is
    set by asyncio's child watcher; polled with a backoff capped at 20 ms.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    delay = 0.001
    while proc.returncode is None:
        remaining = deadline - loop.time()
        if remaining <= 0:
            return False
        await asyncio.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.02)
    return True


def release(proc: asyncio.subprocess.Process) -> None:
    """Close the process's pipes and transport now, while the loop runs:
    left to the garbage collector (a turn cancelled by a signal, then
    ``asyncio.run`` closing the loop) it fails with "Event loop is closed".
    asyncio offers no public close for a ``Process``."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        with contextlib.suppress(Exception):
            transport.close()


async def start(argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str],
                merge_stderr: bool = False, pass_fds: Sequence[int] = (),
                preexec_fn: Callable[[], None] | None = None,
                contain: bool = False, stdin_pipe: bool = False,
                terminal: int | None = None) -> asyncio.subprocess.Process:
    """Spawn ``argv`` as the leader of a new session, stdin /dev/null (a pipe
    with ``stdin_pipe``), stdout and stderr piped (``merge_stderr``: one pipe).
    ``terminal``: the slave end of a pseudo-terminal instead, as all three and
    as the session's controlling terminal (an interactive ``!command``).
    ``contain`` (a command outside the sandbox, whose pid namespace does the
    same inside): in a cgroup of its own (``cgroups``; where none can be made,
    ``ai`` adopts orphans instead). Cancelled while spawning, the child is
    killed before the cancellation goes on."""
    cgroup = cgroups.child() if contain else None
    if contain and cgroup is None:
        _adopt_orphans()
    stdio: dict[str, Any] = {
        "stdin": asyncio.subprocess.PIPE if stdin_pipe else asyncio.subprocess.DEVNULL,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE}
    if terminal is not None:
        stdio = {"stdin": terminal, "stdout": terminal, "stderr": terminal}
        preexec_fn = _then(_take_terminal, preexec_fn)
    spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=dict(env), **stdio,
        start_new_session=True, limit=CHUNK, pass_fds=tuple(pass_fds),
        preexec_fn=_joining(cgroup, preexec_fn)))
    try:
        child = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            pid = (await spawn).pid
            if cgroup is not None:
                _cgroup_of[pid] = cgroup
            kill_group_tree(pid)
        raise
    except BaseException:
        if cgroup is not None:
            cgroups.kill(cgroup)
        raise
    if cgroup is not None:
        _cgroup_of[child.pid] = cgroup
    return child


async def terminate(proc: asyncio.subprocess.Process, grace: float) -> None:
    """SIGTERM to the group; after ``grace`` seconds SIGKILL to it and to every
    descendant; returns once the leader's exit status is known (or 10 s passed)."""
    signal_group(proc.pid, signal.SIGTERM)
    if not await wait_exit(proc, grace):
        kill_group_tree(proc.pid)
        await wait_exit(proc, 10.0)


async def run_process(argv: Sequence[str], *, cwd: str | os.PathLike[str],
                      env: Mapping[str, str], timeout: float,
                      on_output: Callable[[str], None] = lambda _t: None,
                      head: int = 15_000, tail: int = 15_000,
                      grace: float = 2.0, drain: float = 0.5,
                      pass_fds: Sequence[int] = (),
                      on_start: Callable[[int], None] = lambda _pid: None,
                      contain: bool = False, input: bytes | None = None,
                      merge_stderr: bool = False, split_stderr: bool = False,
                      keep_leftovers: bool = False) -> ProcResult:
    """Run ``argv`` to completion (or timeout) and return what it did.

    ``pass_fds`` stay open in the child; ``on_start`` gets its pid once spawned;
    ``contain``, ``merge_stderr``: see ``start``. ``input`` is written to its
    stdin, which is then closed (a child that does not read it is no error).
    ``split_stderr``: stderr is kept apart, in ``ProcResult.errors``
    (bounded alike), not shown to ``on_output``. ``keep_leftovers`` (the user's
    own command, see ``reaper.wrap``): what it left running once it ended is not
    killed; a timeout or a cancel still ends the whole tree."""
    start_time = time.monotonic()
    proc = await start(argv, cwd=cwd, env=env, pass_fds=pass_fds, contain=contain,
                       merge_stderr=merge_stderr, stdin_pipe=input is not None)
    on_start(proc.pid)
    capture, throttle = Capture(head, tail), Throttle(on_output)
    errors = Capture(head, tail) if split_stderr else capture
    assert proc.stdout is not None
    readers = [asyncio.create_task(_pump(proc.stdout, capture, throttle))]
    if proc.stderr is not None:
        readers.append(asyncio.create_task(
            _pump(proc.stderr, errors, Throttle(lambda _t: None) if split_stderr else throttle)))
    feeder = asyncio.create_task(_feed(proc, input)) if input is not None else None
    timed_out = leftovers = False
    try:
        if not await wait_exit(proc, timeout):
            timed_out = True
            await terminate(proc, grace)
        _done, pending = await asyncio.wait(readers, timeout=drain)
        if timed_out or not keep_leftovers:
            end_leftovers(proc.pid)
        leftovers = bool(pending)
        if pending:
            await asyncio.wait(pending, timeout=drain)
    finally:
        cancelled = proc.returncode is None
        if cancelled:
            kill_group_tree(proc.pid)
        if cancelled or timed_out or not keep_leftovers:
            end_leftovers(proc.pid)  # no-op unless cancelled or leftovers
        for task in (*readers, *([feeder] if feeder else [])):
            task.cancel()
        release(proc)
        throttle.flush()
    returncode = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    return ProcResult(returncode, timed_out, time.monotonic() - start_time, capture.text(),
                      capture.total, capture.cut_bytes, capture.cut_lines, leftovers,
                      errors.text() if split_stderr else "")


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    """Write ``data`` to the child's stdin and close it; a child that exits
    without reading it all (a closed pipe) is fine."""
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(Exception):
        proc.stdin.close()
