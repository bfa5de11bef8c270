"""Asking on the controlling terminal (one-shot mode, even with stdin piped).

The answer is read through the event loop (``add_reader``), not a blocking
thread, so Ctrl-C at the question cancels cleanly.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from rich.console import Console

from swebash_py.approvals.approver import Answer, Asker, parse_answer
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.ui.question import prompt_for, show_question
from swebash_py.ui.terminal import discard_typed_ahead, has_terminal, terminal_fd

Suspend = Callable[[], AbstractContextManager[object]]


def terminal_asker(suspend: Suspend | None = None) -> Asker | None:
    """An asker on /dev/tty; None when there is no terminal to ask on."""
    if not has_terminal():
        return None
    lock = asyncio.Lock()

    async def ask(pending: PendingCall, verdict: Verdict, rule: list[str] | None) -> Answer:
        async with lock:
            with suspend() if suspend else nullcontext():
                return await _ask_on_tty(pending, verdict, rule)

    return ask


async def _ask_on_tty(pending: PendingCall, verdict: Verdict, rule: list[str] | None) -> Answer:
    fd = terminal_fd()
    if fd is None:
        return Answer("no")
    try:
        discard_typed_ahead(fd)  # a `y` typed at an imitation of this question is not an answer
        with open(fd, "w", encoding="utf-8", closefd=False) as out:
            console = Console(file=out, force_terminal=True, highlight=False)
            show_question(console, pending, verdict, rule)
            out.write(prompt_for(console.width, pending))
            out.flush()
        return parse_answer(await read_line(fd))
    finally:
        os.close(fd)


async def read_line(fd: int) -> str:
    """One line from ``fd`` without blocking the event loop."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    buffer = bytearray()

    def readable() -> None:
        data = os.read(fd, 4096)
        buffer.extend(data)
        if (not data or b"\n" in buffer) and not done.done():
            done.set_result(buffer.split(b"\n", 1)[0].decode("utf-8", "replace"))

    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)
