"""Running the installed `ai` as a user would: as a subprocess, or in a pty."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.fakeprovider import FakeProvider

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


def model_args(fp: FakeProvider, wire: str = "openai") -> list[str]:
    """``-m MODEL --api-base URL`` for the fake provider, on its OpenAI or Anthropic wire."""
    model = "openai/x" if wire == "openai" else "anthropic/claude-x"
    return ["-m", model, "--api-base", fp.url]


def finish(child: pexpect.spawn) -> int:
    """Wait for ``child`` to end (no traceback shown); its exit status (-signal if killed)."""
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert "Traceback" not in (child.before or "")
    return int(child.exitstatus if child.exitstatus is not None else -child.signalstatus)


def start_repl(spawn_ai: Any, fp: FakeProvider, *args: str,
               env: dict[str, str] | None = None) -> pexpect.spawn:
    """The REPL on the fake provider, once its prompt is drawn."""
    child: pexpect.spawn = spawn_ai(*model_args(fp), *args, env=env)
    child.expect("swebash>")
    return child


def exit_repl(child: pexpect.spawn) -> None:
    """``/exit``, and the REPL ends cleanly."""
    child.sendline("/exit")
    assert finish(child) == 0


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
