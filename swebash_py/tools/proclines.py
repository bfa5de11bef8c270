"""A child's stdout as lines, for a caller that may have enough before it ends.

``stream_lines`` runs ``argv`` through the process owner (``process.proc``) and
hands each stdout line to ``on_line``; once that returns False (the caller
has all it wants, e.g. ripgrep's 200th match) the group is killed at once.
Whatever happens, both pipes keep being read to their end (lines past the stop
are dropped), lines longer than ``max_line`` bytes are dropped rather than
buffered, and the call returns by ``timeout`` + ``grace`` + a short drain:
the child can neither block on a full pipe nor keep us waiting for its end.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from swebash_py.process import proc

MAX_LINE = 4 * 1024 * 1024
STDERR_KEPT = 4096
DRAIN = 0.5


@dataclass(frozen=True)
class Streamed:
    returncode: int
    timed_out: bool
    stopped: bool  # ended by us, because ``on_line`` had enough
    stderr: str


class _Lines:
    """Splits chunks into lines for ``on_line`` until it says stop; bounded memory."""

    def __init__(self, on_line: Callable[[bytes], bool], max_line: int) -> None:
        self.on_line, self.max_line = on_line, max_line
        self.partial = bytearray()
        self.overlong = False  # inside a line already too long: skip to its end
        self.enough = asyncio.Event()

    def feed(self, data: bytes) -> None:
        if self.enough.is_set():
            return  # drained and discarded: the child must not block on the pipe
        *lines, rest = data.split(b"\n")
        for line in lines:
            whole, self.overlong = (not self.overlong and
                                    len(self.partial) + len(line) <= self.max_line), False
            if whole and not self.on_line(bytes(self.partial + line)):
                self.enough.set()
                return
            self.partial.clear()
        self.partial += rest
        if len(self.partial) > self.max_line:
            self.partial.clear()
            self.overlong = True


async def stream_lines(argv: Sequence[str], *, cwd: str | os.PathLike[str],
                       env: Mapping[str, str], timeout: float,
                       on_line: Callable[[bytes], bool], grace: float = 1.0,
                       max_line: int = MAX_LINE) -> Streamed:
    """Run ``argv``, feeding ``on_line`` each stdout line (without the newline)."""
    child = await proc.start(argv, cwd=cwd, env=env)
    lines, errors = _Lines(on_line, max_line), proc.Capture(STDERR_KEPT, 0)
    assert child.stdout is not None and child.stderr is not None
    readers = [asyncio.create_task(proc.pump(child.stdout, lines.feed)),
               asyncio.create_task(proc.pump(child.stderr, errors.add))]
    enough = asyncio.create_task(lines.enough.wait())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    timed_out = False
    try:
        await asyncio.wait([readers[0], enough], timeout=timeout,
                           return_when=asyncio.FIRST_COMPLETED)
        if lines.enough.is_set():
            proc.kill_group_tree(child.pid)
        elif not await proc.wait_exit(child, max(0.0, deadline - loop.time())):
            timed_out = True
            await proc.terminate(child, grace)
        await proc.wait_exit(child, grace)
        await asyncio.wait(readers, timeout=DRAIN)
    finally:
        if child.returncode is None:  # cancelled, or a leader that would not die
            proc.kill_group_tree(child.pid)
        proc.end_leftovers(child.pid)
        for task in (*readers, enough):
            task.cancel()
        proc.release(child)
    code = child.returncode if child.returncode is not None else -signal.SIGKILL
    return Streamed(code, timed_out, lines.enough.is_set(),
                    bytes(errors.head).decode("utf-8", "replace"))
