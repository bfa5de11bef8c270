"""Escalated and host_allow commands run outside the sandbox but still die with
`ai`: a background host command that kills its supervisor (the reaper) and
double-forks a `sleep` no longer outlives `ai` (each child a tool starts lives
in a cgroup of its own, killed as a whole). The twin: a normal background
host command's output is readable while `ai` runs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.agent.helpers import sent_results
from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.sandbox.conftest import host_pids, needs_bwrap, reap, wait_until

pytestmark = needs_bwrap
__all__ = ["reap"]  # the fixture, shared

# double-forks a sleep into a session of its own, then SIGKILLs the supervisor
ESCAPE = """
(setsid sleep {marker} </dev/null >/dev/null 2>&1 & echo $! > escaped.pid)
p=$$
while [ "$p" -gt 1 ]; do
  case "$(tr '\\0' ' ' < /proc/$p/cmdline)" in
    *reaper.py*) kill -9 "$p"; echo killed > supervisor.txt; break;;
  esac
  p=$(cut -d' ' -f4 /proc/$p/stat)
done
sleep 1000
"""


def call(call_id: str, name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(call_id, name, json.dumps(arguments))])


def _host_allow(isolated: Path, command: str) -> None:
    (isolated / "config.toml").write_text(f'[sandbox]\nhost_allow = [{json.dumps(command)}]\n')


def test_a_host_command_that_kills_its_supervisor_dies_with_ai(
        fake_provider: FakeProvider, workspace: Path, isolated: Path,
        reap: list[str]) -> None:
    marker = f"1000.{os.getpid()}7"
    reap.append(f"sleep {marker}")
    (workspace / "escape.sh").write_text(ESCAPE.format(marker=marker))
    _host_allow(isolated, "sh escape.sh")
    fake_provider.queue(call("c1", "run_command", command="sh escape.sh", background=True),
                        call("c2", "command_output", id="bg1", wait=2),
                        Reply(text="done"))
    result = run_ai(*model_args(fake_provider), "start it", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "supervisor.txt").read_text() == "killed\n"  # it did kill it
    escaped = int((workspace / "escaped.pid").read_text())
    assert escaped > 0  # the sleep was started (and left the process group)
    assert wait_until(lambda: not host_pids(f"sleep {marker}"), timeout=5)


def test_twin_a_host_background_command_is_readable_while_ai_runs(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    (workspace / "hello.sh").write_text("echo hello-from-host\nsleep 30\n")
    _host_allow(isolated, "sh hello.sh")
    fake_provider.queue(call("c1", "run_command", command="sh hello.sh", background=True),
                        call("c2", "command_output", id="bg1", wait=1),
                        Reply(text="done"))
    result = run_ai(*model_args(fake_provider), "start it", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, started, _),) = sent_results(fake_provider.requests[1])
    assert "runs outside the sandbox" in started
    results = sent_results(fake_provider.requests[2])
    assert "hello-from-host" in results[-1][1] and "running" in results[-1][1]
