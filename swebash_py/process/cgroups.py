"""Every child a tool starts in a cgroup of its own, where we may make one.

A process group and a subreaper can be escaped: a command outside the sandbox
that kills its supervisor and double-forks (``setsid``) lands under init,
where nothing of ours can find it. A cgroup cannot be left that way: whatever
the child starts stays in it, and ``cgroup.kill`` (Linux 5.14+; before that,
each member is SIGKILLed until none is left) ends them all at once.

``child()`` makes ``<our cgroup>/swebash-<pid>/c<N>`` under cgroup v2 when our
own cgroup is writable: as root, or as a user whose session systemd delegated
(``user@.service``: terminals of a desktop session). ``join(path)`` is what the
child runs before it execs (it moves itself in, so nothing it starts is ever
outside). ``kill(path)`` ends everything in it and removes it; at exit every
one left is killed, and an ``ai`` that died without that (SIGKILL) has its
cgroups swept by the next ``ai`` that starts a command. Where no cgroup can
be made (an ssh session's root-owned ``session-N.scope``, cgroup v1 only,
macOS) ``child()`` returns None and the caller falls back on the process
group, the supervisor's subreaper and ``ai`` itself as subreaper (``proc``):
what a killed supervisor orphaned is then ours again and killed when ``ai``
exits.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import signal
import time
from pathlib import Path

_counter = itertools.count(1)
_live: set[str] = set()
_parent: Path | None = None
_unavailable = False


def _own_cgroup() -> Path | None:
    """Where our cgroup v2 directory is mounted, or None."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as f:
            relative = next((ln[3:].strip() for ln in f if ln.startswith("0::")), None)
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            mounts = [ln.split() for ln in f]
    except OSError:
        return None
    if relative is None:
        return None
    for fields in mounts:
        sep = fields.index("-") if "-" in fields else -1
        if sep > 0 and fields[sep + 1] == "cgroup2" and fields[3] == "/":
            return Path(fields[4]) / relative.lstrip("/")
    return None


def _ours() -> Path | None:
    """``<our cgroup>/swebash-<pid>``, made on first use; None where it cannot be."""
    global _parent, _unavailable
    if _parent is not None or _unavailable:
        return _parent
    base = _own_cgroup()
    try:
        if base is None:
            raise OSError("no cgroup v2")
        parent = base / f"swebash-{os.getpid()}"
        parent.mkdir(exist_ok=True)
    except OSError:
        _unavailable = True
        return None
    _parent = parent
    _sweep_stale(base)
    atexit.register(kill_all)
    return parent


def child() -> str | None:
    """A new, empty cgroup for one child, or None where none can be made."""
    parent = _ours()
    if parent is None:
        return None
    path = parent / f"c{next(_counter)}"
    try:
        path.mkdir()
    except OSError:
        return None
    _live.add(str(path))
    return str(path)


def join(path: str) -> None:
    """Move the calling process into ``path`` (run in the child before exec;
    a failure leaves it outside, where the process group still holds)."""
    with contextlib.suppress(OSError):
        fd = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)


def members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs"), encoding="ascii") as f:
            return [int(line) for line in f if line.strip()]
    except OSError:
        return []


def kill(path: str, deadline: float = 2.0) -> None:
    """SIGKILL everything in ``path``, then remove it (once it is empty)."""
    try:
        with open(os.path.join(path, "cgroup.kill"), "w", encoding="ascii") as f:
            f.write("1")
    except OSError:  # before Linux 5.14: one by one, until none is left
        pass
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        pids = members(path)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.rmdir(path)
            _live.discard(path)
            return
        time.sleep(0.005)


def _sweep_stale(base: Path) -> None:
    """The cgroups of an ``ai`` that died without cleaning up (SIGKILL, a crash):
    what still runs in them is killed, and they are removed."""
    with contextlib.suppress(OSError):
        for stale in base.glob("swebash-*"):
            pid = stale.name.removeprefix("swebash-")
            if not pid.isdigit() or os.path.exists(f"/proc/{pid}"):
                continue
            for path in stale.glob("c*"):
                if path.is_dir():
                    kill(str(path), deadline=0.5)
            with contextlib.suppress(OSError):
                os.rmdir(stale)


def kill_all() -> None:
    """Every child cgroup still there, and ours (at exit)."""
    for path in list(_live):
        kill(path)
    if _parent is not None:
        with contextlib.suppress(OSError):
            os.rmdir(_parent)
