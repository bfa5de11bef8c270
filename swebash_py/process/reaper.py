"""Commands outside the sandbox die with ``ai``, ``setsid`` included (Linux).

``wrap(argv)`` puts a small supervisor in front of a host command (an
escalated or ``host_allow`` command, or any command under ``--sandbox off``):
run as a script (stdlib only, ``python -I -S``, so it starts in ~15 ms), it

* makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``): whatever the
  command starts and orphans, ``setsid`` and double forks included, becomes
  its child instead of init's, so the whole tree stays findable from /proc;
* asks for a signal when ``ai`` dies (``PR_SET_PDEATHSIG``, so ``kill -9`` of
  ``ai`` counts) and on it SIGKILLs every descendant, repeating until none is
  left, then exits whatever that raised; when the command ends, what it left
  running gets the same drain time as ``proc.run_process`` gives, then is
  killed (saying so);
* gives the command itself ``PR_SET_PDEATHSIG`` = SIGKILL: should the
  supervisor die first (SIGKILLed, OOM-killed, a ``pkill python``, a failure
  in its handler) and ``ai`` die before it could end the cgroup, the command
  does not run on with nobody left to end it (a setuid ``sudo`` drops that
  setting: then the cgroup, swept by the next ``ai``, is what remains);
* lets SIGTERM, SIGHUP and SIGINT pass (the command's group gets them from
  ``ai`` anyway): a timeout or a stop that ends in SIGKILL goes through
  ``kill_tree`` first, since nothing can clean up after SIGKILL.

Why not ``bwrap --unshare-pid`` with the host's filesystem: it needs bwrap
(``--sandbox off`` must work without it), a user namespace breaks ``sudo``,
and a command in a pid namespace cannot signal host processes (``kill`` of a
port's owner is a typical escalated command). What this does not cover: a
process that gets another parent on purpose (``systemd-run``, ``at``, a
daemon asked over a socket) or, when a supervisor is SIGKILLed on its own,
what the command had already started (``ai`` ends the cgroup once the
supervisor is gone, or the next ``ai`` sweeps it).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
DEATH_SIGNAL = signal.SIGUSR1
PASSING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
LEFTOVERS = "\n[background processes still running after the command ended were killed]\n"


KEEP = "--keep-leftovers"


def wrap(argv: list[str], *, keep_leftovers: bool = False) -> list[str]:
    """``argv`` under the supervisor (unchanged where there is no prctl, or where
    our own interpreter cannot be run again, e.g. it lives under another user's
    home: then only the process-group cleanup applies). ``keep_leftovers``: the
    user's own command (``!cmd``, a hook): what it started in the background
    (``!server &``) keeps running once it ended, as after a shell's ``&``; while
    it runs, it still dies with ``ai``."""
    if not sys.platform.startswith("linux") or not os.access(sys.executable, os.X_OK):
        return list(argv)
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), str(os.getpid()),
            KEEP if keep_leftovers else "--", *argv]


def prctl(option: int, value: int) -> None:
    """``prctl(option, value)``; OSError when the kernel refuses (or has none)."""
    import ctypes  # here: only the supervisor calls it this way

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl failed")


def live_processes() -> Iterator[tuple[int, int, int]]:
    """``(pid, parent pid, group id)`` of every process that is not a zombie,
    from /proc (no typing import: this runs as a lean script); listing /proc itself
    failing raises ``OSError`` (a process gone while read is skipped)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[0] not in ("Z", "X"):
            yield int(name), int(fields[1]), int(fields[2])


def descendants(root: int) -> list[int]:
    """Live (not zombie) descendants of ``root``, from /proc."""
    children: dict[int, list[int]] = {}
    for pid, ppid, _pgid in live_processes():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            found.append(pid)
            todo.append(pid)
    return found


def _reap() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_all(deadline: float = 5.0) -> None:
    """SIGKILL every descendant until none is left (orphans come back to us)."""
    kill_tree(os.getpid(), deadline, reap=True)


def kill_tree(root: int, deadline: float = 2.0, reap: bool = False) -> None:
    """SIGKILL the descendants of ``root`` until none is left (``ai`` uses it
    before it SIGKILLs a supervisor, which cannot clean up after SIGKILL)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if reap:
            _reap()
        found = descendants(root)
        if not found:
            return
        for pid in found:
            try:  # noqa: SIM105  (contextlib costs this script's start-up time)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.005)


def _exit_like(status: int) -> None:
    """Exit as the command did (its signal, or its code)."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _on_death(sig: int, _frame: object) -> None:
    try:
        kill_all()
    finally:  # never back into the wait loop: an error here must not leave us
        # running with ai gone; the command's own death signal ends it with us
        os._exit(128 + sig)


def die_with(parent: int, sig: int,
             ask: Callable[[int, int], None] = prctl) -> None:
    """In a child, before exec: ``sig`` when ``parent`` dies (asked first, then
    checked: it may already be gone, and then nobody is left to read how this
    ends). ``ask``: a ``prctl`` resolved before the fork, where one is needed
    (a ``preexec_fn`` of a threaded process must import nothing)."""
    ask(PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:
        os._exit(128 + int(signal.SIGKILL))


def _die_with(supervisor: int) -> None:
    """The command dies with its supervisor."""
    try:
        die_with(supervisor, int(signal.SIGKILL))
    except OSError:
        return  # no prctl: the process group and the cgroup still hold


def main(args: list[str]) -> None:
    parent, keep, argv = int(args[0]), args[1] == KEEP, args[2:]
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, int(DEATH_SIGNAL))
    if os.getppid() != parent:  # ai died before we asked
        os._exit(128 + int(DEATH_SIGNAL))
    signal.signal(DEATH_SIGNAL, _on_death)
    for sig in PASSING:
        signal.signal(sig, lambda _sig, _frame: None)
    supervisor = os.getpid()
    try:
        child = os.fork()
    except OSError:
        os._exit(126)
    if child == 0:
        for sig in (*PASSING, DEATH_SIGNAL, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        _die_with(supervisor)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
            os._exit(127)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            break
    if not keep:
        _end_leftovers()
    _exit_like(status)


def _end_leftovers(drain: float = 0.5) -> None:
    """After the command: what it left running gets ``drain`` seconds (as
    ``proc.run_process`` gives the pipes), then is killed, and says so."""
    end = time.monotonic() + drain
    while descendants(os.getpid()) and time.monotonic() < end:
        _reap()
        time.sleep(0.01)
    if descendants(os.getpid()):
        os.write(2, LEFTOVERS.encode())
        kill_all()


if __name__ == "__main__":
    main(sys.argv[1:])
