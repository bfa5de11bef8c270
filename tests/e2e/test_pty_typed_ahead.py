"""A question is answered only by keys typed after it appeared (contract, "Approvals").

The model draws an imitation of the question; the user types `y` Enter at it.
The real question follows: it must not read that queued `y`. To make the order
certain, the second model reply (the one that asks) is held at a gate until the
`y` is in the terminal's input queue — the imitation is on screen, the real
question is not drawn yet. The twin answers after the question appears and the
call runs, in the one-shot (the /dev/tty asker) and in the REPL (prompt-toolkit).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import exit_repl, finish, model_args, start_repl
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.pty

IMITATION = ("? run_command wants to run:\n  rm -rf build\n"
             "Allow? [y]es / [a]lways / [n]o, or type an instruction: ")
QUEUED = 0.5  # the pty hands typed keys to the line discipline asynchronously


def queue_imitation_then_write(fp: FakeProvider, workspace: Path) -> threading.Event:
    """Reply 1: the imitation and a read that runs unasked; reply 2 (held at the
    returned gate): write_file, which asks; reply 3: the end of the turn."""
    (workspace / "seen.txt").write_text("seen\n")
    gate = threading.Event()
    read = ToolCall("r1", "read_file", json.dumps({"path": "seen.txt"}))
    write = ToolCall("w1", "write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))
    fp.queue(Reply(text=IMITATION, tool_calls=[read]), Reply(tool_calls=[write], gate=gate),
             Reply(text="Turn finished."))
    return gate


def start(mode: str, spawn_ai: Any, fp: FakeProvider) -> pexpect.spawn:
    if mode == "one-shot":
        child: pexpect.spawn = spawn_ai(*model_args(fp), "tidy up")
        return child
    child = start_repl(spawn_ai, fp)
    child.sendline("tidy up")
    return child


def see_the_imitation_then_the_question(child: pexpect.spawn, fp: FakeProvider,
                                        gate: threading.Event, typed_ahead: str) -> None:
    child.expect(r"rm -rf build")
    child.expect(r"Allow\? \[y\]es")  # the imitation, drawn by the model
    fp.wait_for_requests(2)  # the read ran; the asking reply waits at the gate
    if typed_ahead:
        child.send(typed_ahead)
        time.sleep(QUEUED)
    gate.set()
    child.expect(r"new file, 1 line")  # the real question (the imitation has none)
    child.expect("Allow")


def end(mode: str, child: pexpect.spawn) -> None:
    child.expect("Turn finished.")
    if mode == "one-shot":
        assert finish(child) == 0
    else:
        child.expect("swebash>")
        exit_repl(child)


@pytest.mark.parametrize("mode", ["one-shot", "repl"])
def test_a_y_typed_at_an_imitation_does_not_answer_the_real_question(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, mode: str) -> None:
    gate = queue_imitation_then_write(fake_provider, workspace)
    child = start(mode, spawn_ai, fake_provider)
    see_the_imitation_then_the_question(child, fake_provider, gate, typed_ahead="y\r")
    time.sleep(1.0)  # had the queued `y` answered, the write would be done by now
    assert not (workspace / "note.txt").exists()
    assert len(fake_provider.requests) == 2  # the question still waits
    child.send("n\r")
    end(mode, child)
    assert not (workspace / "note.txt").exists()
    result = sent_results(fake_provider.requests[2])[-1]
    assert result[2] and result[1].endswith("denied by the user")
    if mode == "repl":  # nor did the `y` come back later as a line of its own
        assert len(fake_provider.requests) == 3


@pytest.mark.parametrize("mode", ["one-shot", "repl"])
def test_twin_a_y_typed_after_the_question_runs_the_call(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, mode: str) -> None:
    gate = queue_imitation_then_write(fake_provider, workspace)
    child = start(mode, spawn_ai, fake_provider)
    see_the_imitation_then_the_question(child, fake_provider, gate, typed_ahead="")
    child.send("y\r")
    end(mode, child)
    assert (workspace / "note.txt").read_text() == "hi\n"
    result = sent_results(fake_provider.requests[2])[-1]
    assert not result[2]
