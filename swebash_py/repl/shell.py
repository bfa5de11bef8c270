"""`!command`: run a shell command directly, show and keep its output."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

from swebash_py.front.shell_helper import user_shell
from swebash_py.text.truncate import cap_middle

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


def cd_target(command: str) -> str | None:
    """The directory of a plain ``cd [DIR]`` (``~`` for a bare ``cd``); None for
    anything else (``cd a && make`` runs in a shell as usual)."""
    import shlex

    if any(ch in command for ch in ";&|`()<>\n"):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] != "cd" or len(words) > 2:
        return None
    return words[1] if len(words) == 2 else "~"


def resolve_dir(target: str, current: Path, previous: Path) -> Path:
    """Where ``cd target`` from ``current`` leads (``-`` is ``previous``); raises
    NotADirectoryError with a message for the user when it leads nowhere."""
    if target == "-":
        return previous
    path = Path(os.path.expandvars(os.path.expanduser(target)))
    path = (current / path).resolve() if not path.is_absolute() else path.resolve()
    if not path.is_dir():
        raise NotADirectoryError(f"cd: no such directory: {target}")
    return path
