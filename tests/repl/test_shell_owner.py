"""`!command` without a terminal runs through the one process owner: bounded,
its tree ended on Ctrl-C (cancellation), the user's environment; twins show the
command itself runs as before."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest

from swebash_py.repl.shell import run_shell
from tests.sandbox.conftest import host_pids, wait_until


async def test_twin_output_and_exit_code_as_before(tmp_path: Path) -> None:
    code, output = await run_shell("echo out; echo err >&2; exit 3", tmp_path)
    assert code == 3
    assert "out\n" in output and "err\n" in output  # one stream, as typed at a terminal


async def test_ctrl_c_ends_the_command_and_what_it_started(tmp_path: Path) -> None:
    marker = f"sleep 1000.72{os.getpid()}"  # unique: a stray from another run is not ours
    task = asyncio.create_task(run_shell(
        f"setsid {marker} > /dev/null 2>&1 < /dev/null & sleep 60", tmp_path))
    assert await asyncio.to_thread(wait_until, lambda: host_pids(marker))
    task.cancel()  # what Ctrl-C does to the REPL's task
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(wait_until, lambda: not host_pids(marker))


async def test_output_is_bounded(tmp_path: Path) -> None:
    code, output = await run_shell("head -c 20000000 /dev/zero | tr '\\0' x; echo END",
                                   tmp_path)
    assert code == 0 and output.rstrip().endswith("END")
    assert len(output) < 2_000_000 and "bytes" in output  # the middle cut, and said


async def test_the_users_own_command_has_the_users_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``!git push`` needs GH_TOKEN: the user's command, typed by the user, runs with
    their whole environment (the model's commands are the ones kept from secrets)."""
    monkeypatch.setenv("SHELL_TEST_API_KEY", "bang-secret-value-987")
    monkeypatch.setenv("SHELL_TEST_PLAIN", "plain-ok")
    _code, output = await run_shell("env", tmp_path)
    assert "SHELL_TEST_API_KEY=bang-secret-value-987" in output
    assert "SHELL_TEST_PLAIN=plain-ok" in output


async def test_what_the_users_command_left_running_keeps_running(tmp_path: Path) -> None:
    """``!python -m http.server &``: the user's own background job outlives the
    command, as after a shell's ``&`` (the model's commands' leftovers are killed).
    The twin in this file: Ctrl-C while it runs still ends its whole tree."""
    marker = tmp_path / "marker"
    code, output = await run_shell(f"(sleep 1; touch {marker}) >/dev/null 2>&1 &", tmp_path)
    assert code == 0 and "killed" not in output
    for _ in range(60):
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.exists()
