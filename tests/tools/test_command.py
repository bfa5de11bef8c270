"""run_command with real processes: timeouts, leftovers, output bounds, environment."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from swebash_py.process.proc import Capture
from swebash_py.sandbox import runner as sandbox_runner
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand, pick_shell, strip_ansi
from tests.tools.conftest import alive, call


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    """Outside the sandbox: these tests are about the process runner itself (host
    pids, signals); tests/sandbox holds the same promises inside the sandbox."""
    return ToolContext(workspace=workspace, command_timeout=30.0, grant="host")


def pids(output: str) -> list[int]:
    return [int(word) for word in output.split() if word.isdigit()]


def assert_gone(*pid_list: int) -> None:
    """Every pid is dead (a SIGKILL lands asynchronously: wait for it, bounded)."""
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pid_list) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [p for p in pid_list if alive(p)] == []


async def test_exit_code_and_both_streams(ctx: ToolContext) -> None:
    result = await call(RunCommand(), ctx, command="echo out; echo err >&2; exit 3")
    lines = result.output.splitlines()
    assert sorted(lines[:2]) == ["err", "out"]
    assert lines[2].startswith("[exit code 3 · ")
    assert not result.is_error and result.metadata["exit_code"] == 3


async def test_runs_in_workspace_with_empty_stdin(workspace: Path, ctx: ToolContext) -> None:
    result = await call(RunCommand(), ctx, command="pwd; cat; echo done")
    assert result.output.splitlines()[:2] == [str(workspace), "done"]


async def test_environment_is_scrubbed_and_non_interactive(
        ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "MY_SECRET"):
        monkeypatch.setenv(name, "hunter2")
    monkeypatch.setenv("KEEP_ME", "visible")
    monkeypatch.setenv("TERM", "xterm-256color")
    ctx.grant = "write"
    out = (await call(RunCommand(), ctx, command="env")).output
    assert "hunter2" not in out
    for expected in ("PAGER=cat", "GIT_PAGER=cat", "TERM=dumb", "NO_COLOR=1",
                     "GIT_TERMINAL_PROMPT=0", "PATH=", "HOME="):
        assert expected in out
    # outside the sandbox our environment passes, minus secrets; inside, only the allow-list
    ctx.grant = "host"
    plain = (await call(RunCommand(), ctx, command="env")).output
    assert "KEEP_ME=visible" in plain and "hunter2" not in plain
    assert ("KEEP_ME=visible" in out) is not sandbox_runner.available().ok


async def test_ansi_stripped_and_bad_utf8_replaced(ctx: ToolContext) -> None:
    command = r"printf '\033[1;31mred\033[0m \033]0;title\007ok\n\377\376x\nwait\rdone\n'"
    out = (await call(RunCommand(), ctx, command=command)).output.splitlines()
    assert out[:3] == ["red ok", "\ufffd\ufffdx", "done"]


def test_strip_ansi_cases() -> None:
    assert strip_ansi("\x1b[2K\x1b[1Gplain\x1b(B\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") \
        == "plainlink"
    assert strip_ansi("a\r\nb\n") == "a\nb\n"


async def test_progress_is_streamed(ctx: ToolContext) -> None:
    seen: list[str] = []
    ctx.progress = seen.append
    await call(RunCommand(), ctx, command="echo one; echo two")
    assert "".join(seen) == "one\ntwo\n"


async def test_killed_by_signal_is_stated(ctx: ToolContext) -> None:
    result = await call(RunCommand(), ctx, command="kill -9 $$")
    assert "[killed by signal 9 (SIGKILL)" in result.output and not result.is_error


async def test_yes_output_is_bounded(ctx: ToolContext) -> None:
    ctx.max_output_chars = 10_000
    result = await call(RunCommand(), ctx, command="yes | head -c 20000000")
    assert len(result.output) < 11_000
    assert result.metadata["output_bytes"] == 20_000_000
    assert "lines) of output cut from the middle" in result.output
    assert result.output.startswith("y\ny\n") and "[exit code 0" in result.output


def test_capture_keeps_head_and_tail() -> None:
    cap = Capture(head=4, tail=4)
    for chunk in (b"ab\ncd", b"\nef\n" * 100, b"xyz!"):
        cap.add(chunk)
    text = cap.text()
    assert text.startswith("ab\nc") and text.endswith("xyz!")
    assert cap.cut_bytes == cap.total - 8 and cap.cut_lines == 200


async def test_background_child_does_not_hang_or_survive(ctx: ToolContext) -> None:
    result = await call(RunCommand(), ctx, command="sleep 60 & echo $!")
    assert "[exit code 0" in result.output and "background processes" in result.output
    assert_gone(*pids(result.output.splitlines()[0]))


async def test_grandchild_in_subshell_is_killed(ctx: ToolContext) -> None:
    result = await call(RunCommand(), ctx,
                        command="( (sleep 60 >/dev/null 2>&1 & echo $!) ); echo started")
    assert "[exit code 0" in result.output
    assert_gone(*pids(result.output.splitlines()[0]))


async def test_timeout_kills_the_group(ctx: ToolContext) -> None:
    ctx.command_timeout = 1  # caps the larger per-call timeout below
    result = await call(RunCommand(), ctx, command="sleep 100 & echo $!; echo $$; wait",
                        timeout=50)
    assert result.is_error and "timed out after 1 s" in result.output
    assert_gone(*pids(result.output.splitlines()[0] + " " + result.output.splitlines()[1]))


@pytest.mark.slow
async def test_timeout_with_term_ignored(ctx: ToolContext) -> None:
    command = "trap '' TERM; sleep 100 & echo $!; echo $$; sleep 100"
    result = await call(RunCommand(), ctx, command=command, timeout=1)
    assert result.is_error and "timed out after 1 s" in result.output
    assert result.metadata["signal"] == 9
    lines = result.output.splitlines()
    assert_gone(*pids(lines[0] + " " + lines[1]))


async def test_cancellation_kills_the_group(ctx: ToolContext) -> None:
    started = asyncio.Event()
    text: list[str] = []

    def progress(chunk: str) -> None:
        text.append(chunk)
        if "\n" in "".join(text):
            started.set()

    ctx.progress = progress
    task = asyncio.create_task(call(RunCommand(), ctx, command="echo $$; exec sleep 100"))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_gone(*pids("".join(text)))


def test_preview_shows_full_command(ctx: ToolContext) -> None:
    command = "git status\ncat ~/.ssh/id_rsa"
    preview = RunCommand().preview(RunCommand.Args(command=command), ctx)
    assert preview.detail == command and preview.detail_kind == "command"
    assert preview.sensitive and not preview.outside


def test_shell_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pick_shell({"SHELL": "/usr/bin/fish"}) == "/bin/bash"
    assert pick_shell({"SHELL": "/bin/sh"}) == "/bin/sh"
    assert pick_shell({}) == "/bin/bash"
