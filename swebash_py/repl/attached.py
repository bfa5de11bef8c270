"""`!command` attached to the terminal through a pseudo-terminal, output teed.

The command gets a real terminal (its own pty, sized like ours and resized
with it, as its controlling terminal), so `!vim`, `!git commit` and `!python` reading input
work; whatever it writes is copied to our terminal as it comes and kept
(bounded) so it can be attached to the next question. Our terminal is in raw
mode meanwhile: every key, Ctrl-C included, goes to the command. A full-screen
program (one that switched to the alternate screen) is not attached: what it
drew is not text a model can use.

The command is started by the one process owner (``proc.start`` with
``terminal``: the pty's slave as its stdio and controlling terminal) under the
reaper's supervisor and in a cgroup of its own, like ``shell.run_shell``: a
SIGTERM or SIGKILL of ``ai`` ends it and what it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import signal
import termios
import tty
from dataclasses import dataclass

from swebash_py.process.proc import end_leftovers, kill_group_tree, start
from swebash_py.repl.shell import shell_argv, shell_env
from swebash_py.text.sanitize import neutralize

KEEP_BYTES = 256 * 1024
_ALT_SCREEN = (b"\x1b[?1049h", b"\x1b[?1047h", b"\x1b[?47h")


@dataclass
class Attached:
    code: int
    output: str
    full_screen: bool  # it used the alternate screen: not worth attaching


def _copy_size(src: int, dst: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.ioctl(dst, termios.TIOCSWINSZ, fcntl.ioctl(src, termios.TIOCGWINSZ, b"\0" * 8))


async def run_attached(command: str, cwd: str, stdin_fd: int, stdout_fd: int) -> Attached:
    """Run ``command`` in the user's shell on a pty bridged to ``stdin_fd``/``stdout_fd``."""
    master, slave = pty.openpty()
    _copy_size(stdout_fd, master)
    try:
        process = await start(shell_argv(command), cwd=cwd, env=shell_env(), terminal=slave)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    kept = bytearray()
    full_screen = False
    loop = asyncio.get_running_loop()
    closed: asyncio.Future[None] = loop.create_future()

    def from_command() -> None:
        nonlocal full_screen
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every holder of the pty's other end is gone
            data = b""
        if not data:
            loop.remove_reader(master)
            if not closed.done():
                closed.set_result(None)
            return
        os.write(stdout_fd, data)
        full_screen = full_screen or any(seq in data for seq in _ALT_SCREEN)
        kept.extend(data)
        del kept[:-KEEP_BYTES]

    def from_user() -> None:
        with contextlib.suppress(OSError):
            os.write(master, os.read(stdin_fd, 4096))

    saved = termios.tcgetattr(stdin_fd)
    tty.setraw(stdin_fd, termios.TCSADRAIN)  # keys typed ahead are kept
    # our window resized: so is the command's (the kernel tells it with SIGWINCH)
    loop.add_signal_handler(signal.SIGWINCH, _copy_size, stdout_fd, master)
    _copy_size(stdout_fd, master)  # a resize while it was starting
    loop.add_reader(master, from_command)
    loop.add_reader(stdin_fd, from_user)
    try:
        code = await process.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(closed), 1.0)  # its last output
    except asyncio.CancelledError:
        kill_group_tree(process.pid)
        end_leftovers(process.pid)
        raise
    finally:
        loop.remove_signal_handler(signal.SIGWINCH)  # the prompt sets its own again
        loop.remove_reader(stdin_fd)
        loop.remove_reader(master)
        termios.tcsetattr(stdin_fd, termios.TCSADRAIN, saved)
        os.close(master)
    return Attached(code, neutralize(kept.decode("utf-8", errors="replace")), full_screen)
