"""Running the installed `ai` as a user would: as a subprocess, or in a pty."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

AI = str(Path(sys.executable).parent / "ai")


def ai_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40",
                "PROMPT_TOOLKIT_NO_CPR": "1"})
    env.update(extra or {})
    return env


def run_ai(*args: str, stdin: str | None = None, cwd: Path | None = None,
           env: dict[str, str] | None = None,
           timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`ai ARGS` with stdin piped (never a terminal), output captured."""
    return subprocess.run([AI, *args], input=stdin if stdin is not None else "",
                          capture_output=True, text=True, cwd=cwd, env=ai_env(env),
                          timeout=timeout, start_new_session=True)


@pytest.fixture
def spawn_ai(workspace: Path) -> Iterator[object]:
    """Start `ai ARGS` in a pseudo-terminal; closed after the test."""
    children: list[pexpect.spawn] = []

    def spawn(*args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
        child = pexpect.spawn(AI, list(args), cwd=str(workspace), env=ai_env(env),
                              encoding="utf-8", timeout=30, dimensions=(40, 100))
        children.append(child)
        return child

    yield spawn
    for child in children:
        if child.isalive():
            child.terminate(force=True)
