"""`!command`: run a shell command directly, show and keep its output.

Without a terminal (``attached.py`` has the other case) the command is
started by the one process owner like a tool's command outside the sandbox:
under the reaper's supervisor, so Ctrl-C (which cancels the task), a SIGTERM
or a SIGKILL of ``ai`` while it runs ends it and everything it started. What it
leaves running once it ended (``!python -m http.server &``) keeps running, as
after a shell's ``&``: the command is the user's, not the model's. Its output
is kept bounded (first and last ``KEEP_BYTES``); its environment is the user's,
whole (what it prints is attached to the next question)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from swebash_py.front.shell_helper import user_shell
from swebash_py.text.truncate import cap_middle

MAX_CONTEXT_CHARS = 20_000
KEEP_BYTES = 512 * 1024  # printed whole below this, first and last beyond it
NO_TIMEOUT = float("inf")  # the user's own command: Ctrl-C is its limit


def shell_argv(command: str) -> list[str]:
    """``command`` in the user's shell, under the reaper's supervisor."""
    from swebash_py.process import reaper  # here: not on the REPL's start-up path

    return reaper.wrap([user_shell(), "-c", command], keep_leftovers=True)


def shell_env() -> Mapping[str, str]:
    """The user's own environment, whole: ``!command`` is the user's command, typed at
    their prompt, not the model's (``git push`` needs its ``GH_TOKEN``)."""
    return os.environ


async def run_shell(command: str, cwd: Path) -> tuple[int, str]:
    """Run ``command`` in the user's shell; returns (exit code, output)."""
    from swebash_py.process.proc import run_process

    res = await run_process(shell_argv(command), cwd=cwd, env=shell_env(), timeout=NO_TIMEOUT,
                            merge_stderr=True, head=KEEP_BYTES, tail=KEEP_BYTES,
                            keep_leftovers=True)
    return res.returncode, res.output


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
