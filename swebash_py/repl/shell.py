"""`!command`: run a shell command directly, show and keep its output."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

from swebash_py.agent.truncate import cap_middle
from swebash_py.shell_helper import user_shell

MAX_CONTEXT_CHARS = 20_000


async def run_shell(command: str, cwd: Path) -> tuple[int, str]:
    """Run ``command`` in the user's shell; returns (exit code, output)."""
    process = await asyncio.create_subprocess_exec(
        user_shell(), "-c", command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True)
    try:
        output, _ = await process.communicate()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        raise
    return process.returncode or 0, output.decode("utf-8", errors="replace")


def as_context(command: str, code: int, output: str) -> str:
    """The text attached to the next question."""
    body = cap_middle(output, MAX_CONTEXT_CHARS).rstrip()
    return f"I ran `{command}` (exit code {code}):\n```\n{body}\n```"
