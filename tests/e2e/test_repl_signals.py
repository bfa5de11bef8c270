"""SIGTERM and SIGHUP in the REPL: a running turn ends like Ctrl-C, then `ai` exits."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import finish, start_repl
from tests.e2e.crashkit import last_stop_reason, result_for, wait_until
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.pty


def test_sigterm_mid_turn_in_the_repl(fake_provider: FakeProvider, spawn_ai: Any,
                                      workspace: Path) -> None:
    command = json.dumps({"command": "touch started && sleep 30 && touch done"})
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "run_command", command)]))
    child = start_repl(spawn_ai, fake_provider, "-y")
    child.sendline("run it")
    wait_until("the command to start", (workspace / "started").exists)
    child.kill(signal.SIGTERM)
    assert finish(child) == 143
    assert last_stop_reason() == "cancelled"
    stored = result_for("c1")
    assert stored is not None and stored["is_error"]
    assert not (workspace / "done").exists()


def test_sighup_at_the_prompt_exits_129(spawn_ai: Any) -> None:
    child = spawn_ai()
    child.expect("swebash>")
    child.kill(signal.SIGHUP)
    assert finish(child) == 129
