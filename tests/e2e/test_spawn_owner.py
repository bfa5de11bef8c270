"""Hooks and the REPL's `!command` are the owner's children (process/proc.py):
through the installed `ai`, they end with it. Each wall has its twin: the
hook that finishes gives its verdict, `!echo hi` prints hi."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.conftest import AI, ai_env, exit_repl, start_repl
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.sandbox.conftest import host_pids, wait_until


def write_reply() -> Reply:
    return Reply(tool_calls=[ToolCall("w1", "write_file",
                                      json.dumps({"path": "note.txt", "content": "x\n"}))])


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_a_hook_running_when_ai_is_killed_dies_with_it(
        fake_provider: FakeProvider, workspace: Path, isolated: Path, tmp_path: Path) -> None:
    marker = f"sleep 1000.73{os.getpid()}"  # unique: a stray from another run is not ours
    pids = tmp_path / "hook.pid"
    (isolated / "config.toml").write_text(
        f'[hooks]\ntimeout = 600\npre_tool = ["echo $$ > {pids}; {marker}"]\n')
    fake_provider.queue(write_reply(), Reply(text="never reached"))
    ai = subprocess.Popen([AI, "-y", "-m", "openai/x", "--api-base", fake_provider.url,
                           "write"], cwd=workspace, env=ai_env(), stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          start_new_session=True)
    try:
        assert wait_until(lambda: host_pids(marker) and pids.exists(), 30)
        shell = int(pids.read_text())
        os.kill(ai.pid, signal.SIGKILL)  # ai alone: nothing can clean up after it
        ai.wait(10)
        assert wait_until(lambda: not host_pids(marker) and not alive(shell))
    finally:
        if ai.poll() is None:
            ai.kill()
    assert not (workspace / "note.txt").exists()


def test_twin_a_hook_that_finishes_gives_its_verdict(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text(
        '[hooks]\npre_tool = ["cat > /dev/null; echo not today >&2; exit 2"]\n')
    fake_provider.queue(write_reply(), Reply(text="Understood."))
    done = subprocess.run([AI, "-y", "-m", "openai/x", "--api-base", fake_provider.url,
                           "write"], cwd=workspace, env=ai_env(), capture_output=True,
                          text=True, timeout=60, start_new_session=True)
    assert done.returncode == 0, done.stderr
    assert not (workspace / "note.txt").exists()
    assert "not today" in json.dumps(fake_provider.requests[1].body)


def test_bang_command_ctrl_c_returns_to_the_prompt(fake_provider: FakeProvider,
                                                   spawn_ai: Any) -> None:
    marker = f"sleep 1000.74{os.getpid()}"  # unique: a stray from another run is not ours
    child = start_repl(spawn_ai, fake_provider)
    child.sendline(f"!echo started-$((6*7)); {marker}")
    child.expect("started-42")
    assert wait_until(lambda: host_pids(marker))
    child.sendcontrol("c")
    child.expect("swebash>")
    assert wait_until(lambda: not host_pids(marker))
    # twin: the next `!` command runs and prints as before
    child.sendline("!echo hi-$((1+1))")
    child.expect("hi-2")
    child.expect("swebash>")
    exit_repl(child)


def test_bang_command_running_when_ai_is_killed_dies_with_it(fake_provider: FakeProvider,
                                                             spawn_ai: Any) -> None:
    marker = f"sleep 1000.75{os.getpid()}"  # unique: a stray from another run is not ours
    child = start_repl(spawn_ai, fake_provider)
    child.sendline(f"!setsid {marker} > /dev/null 2>&1 < /dev/null & echo bg-$((2+3)); wait")
    child.expect("bg-5")
    assert wait_until(lambda: host_pids(marker))
    os.kill(child.pid, signal.SIGKILL)
    assert wait_until(lambda: not host_pids(marker))
