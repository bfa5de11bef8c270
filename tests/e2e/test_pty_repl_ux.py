"""The REPL as a new user meets it: one question at a time, cancel at every moment."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import exit_repl, finish, model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.pty


def plain(text: str) -> str:
    """Terminal output without its escape sequences and carriage returns."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", text)


def screen(raw: str) -> list[str]:
    """What the 40x100 terminal shows after ``raw`` (a real VT emulator)."""
    import pyte

    term = pyte.Screen(100, 40)
    pyte.Stream(term).feed(raw)
    return [line.rstrip() for line in term.display if line.strip()]


def command_call(command: str, call_id: str = "r1") -> Reply:
    return Reply(tool_calls=[ToolCall(call_id, "run_command", json.dumps({"command": command}))])


def ctrl_c_stops_the_sleep(child: pexpect.spawn, fp: FakeProvider) -> None:
    """``sleep 30`` (call r1) runs; Ctrl-C stops it at once, and the history stays valid."""
    child.expect(r"sleep 30(\x1b\[[0-9;]*m)?\s+\d")  # its spinner, with a timer: it runs
    child.sendcontrol("c")
    child.expect("cancelled", timeout=10)  # not after 30 s
    child.expect("swebash>")
    fp.queue(Reply(text="Fine, stopped."))
    child.sendline("what happened?")
    child.expect("Fine, stopped.")
    (result,) = sent_results(fp.requests[1])
    assert result[0] == "r1" and result[2] and "cancelled" in result[1]
    exit_repl(child)


def test_ctrl_c_stops_a_command_just_approved_in_the_repl(fake_provider: FakeProvider,
                                                          spawn_ai: Any) -> None:
    # the question before the run (no preview first), then the approved command runs
    Path(os.environ["SWEBASH_CONFIG"]).write_text("[sandbox]\npreview = false\n")
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(command_call("sleep 30"))
    child.sendline("wait a while")
    child.expect("Allow")
    child.sendline("y")
    child.expect("allowed by you")
    ctrl_c_stops_the_sleep(child, fake_provider)


def test_ctrl_c_at_an_open_question_cancels_the_turn_once(fake_provider: FakeProvider,
                                                          spawn_ai: Any,
                                                          workspace: Path) -> None:
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(command_call("touch never-made"))
    child.sendline("make it")
    child.expect("Allow")
    seen = io.StringIO()
    child.logfile_read = seen
    child.sendcontrol("c")
    child.expect("swebash>")
    lines = screen(seen.getvalue())
    assert lines.count("cancelled") == 1  # the turn's line, once
    assert any(line.startswith("✗ run_command") and "cancelled" in line for line in lines)
    assert not any("denied" in line for line in lines)
    assert not (workspace / "never-made").exists()
    fake_provider.queue(Reply(text="Next one fine."))
    child.sendline("next")
    child.expect("Next one fine.")
    (result,) = sent_results(fake_provider.requests[1])
    assert result[2] and "cancelled" in result[1]
    exit_repl(child)


def test_two_questions_at_once_are_drawn_one_after_the_other(fake_provider: FakeProvider,
                                                             spawn_ai: Any) -> None:
    calls = [ToolCall("c1", "read_file", json.dumps({"path": "/etc/hostname"})),
             ToolCall("c2", "list_directory", json.dumps({"path": "/etc"}))]
    fake_provider.queue(Reply(text="Let me look.", tool_calls=calls),
                        Reply(text="Both looked at."))
    child = spawn_ai(*model_args(fake_provider))
    seen = io.StringIO()
    child.logfile_read = seen
    child.expect("swebash>")
    child.sendline("look around")
    child.expect("wants to run")
    child.expect(r"Allow\? \[y\]es.*instruction:")
    child.sendline("y")
    child.expect("wants to run")
    child.expect(r"Allow\? \[y\]es.*instruction:")
    child.sendline("y")
    child.expect("Both looked at.")
    child.expect("swebash>")
    exit_repl(child)
    text = plain(seen.getvalue())
    assert text.count("read_file wants to run") == 1
    assert text.count("list_directory wants to run") == 1
    assert text.count("outside the workspace: /etc/hostname") == 1
    question_two = text.split("list_directory wants to run")[1].split("instruction: y")[0]
    assert "✓" not in question_two  # no result drawn into the open question
    assert text.count("✓ read_file") == 1 and text.count("✓ list_directory") == 1


def test_the_tool_result_waits_for_the_answer(fake_provider: FakeProvider, spawn_ai: Any,
                                              workspace: Path) -> None:
    """A read-only call that needs no question finishes while another's question is
    open: its result is printed after the answer, not into the prompt line."""
    (workspace / "inside.txt").write_text("inner words\n")
    calls = [ToolCall("c1", "list_directory", json.dumps({"path": "/etc"})),
             ToolCall("c2", "read_file", json.dumps({"path": "inside.txt"}))]
    fake_provider.queue(Reply(tool_calls=calls), Reply(text="Done."))
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("look")
    child.expect(r"Allow\? \[y\]es.*instruction:")
    child.sendline("y")
    child.expect("Done.")
    after_prompt = plain(child.before)
    # the answer came first on the question's line, the result after it
    assert re.search(r"instruction: y\n(.|\n)*inner words", after_prompt)
    exit_repl(child)


def test_continue_shows_what_is_being_resumed(fake_provider: FakeProvider,
                                              spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text="Port 8080 is held by nginx."))
    child = spawn_ai(*model_args(fake_provider), "who holds port 8080?")
    child.expect("nginx")
    assert finish(child) == 0
    child = spawn_ai("-c", *model_args(fake_provider))
    child.expect("resumed session [0-9a-f]+: who holds port 8080")
    child.expect("you.*who holds port 8080")
    child.expect("ai .*Port 8080 is held by nginx.")
    child.expect("swebash>")
    exit_repl(child)


def test_bang_command_reads_the_keyboard_and_its_output_is_attached(
        fake_provider: FakeProvider, spawn_ai: Any) -> None:
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("""!python3 -c "print('hello ' + input('na' + 'me? ') + '!')" """)
    child.expect("name\\? ")  # the program's own prompt (not in the command line)
    child.sendline("bob")
    child.expect("hello bob!")
    child.expect("attached to your next question")
    child.expect("swebash>")
    fake_provider.queue(Reply(text="Noted."))
    child.sendline("what did it say?")
    child.expect("Noted.")
    assert "hello bob!" in json.dumps(fake_provider.requests[0].body)
    exit_repl(child)


def test_bang_cd_moves_the_repl_and_says_so(fake_provider: FakeProvider, spawn_ai: Any,
                                             workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "marker-in-src").write_text("")
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("!cd src")
    child.expect("now in .*src")
    child.expect("swebash>")
    child.sendline("!ls")
    child.expect("marker-in-src")
    child.expect("swebash>")
    child.sendline("!cd nowhere")
    child.expect("no such directory: nowhere")
    child.sendline("!cd -")
    child.expect("now in ")
    child.sendline("!ls")
    child.expect("src")
    exit_repl(child)


def test_an_edit_known_to_fail_fails_without_a_question(fake_provider: FakeProvider,
                                                        workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    edit = {"path": "app.py", "old_text": "y = 2", "new_text": "y = 3"}
    fake_provider.queue(Reply(tool_calls=[ToolCall("e1", "edit_file", json.dumps(edit))]),
                        Reply(text="I will read it first."))
    result = run_ai(*model_args(fake_provider), "fix it", cwd=workspace)
    assert result.returncode == 0, result.stderr
    (sent,) = sent_results(fake_provider.requests[1])
    assert sent[2] and "not found" in sent[1] and "terminal" not in sent[1]


def test_at_path_in_a_question_attaches_the_file(fake_provider: FakeProvider, spawn_ai: Any,
                                                 workspace: Path) -> None:
    (workspace / "todo.txt").write_text("water the plants\n")
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(Reply(text="One task."))
    child.sendline("how many tasks in @todo.txt?")
    child.expect("attached todo.txt")
    child.expect("One task.")
    assert "water the plants" in json.dumps(fake_provider.requests[0].body)
    exit_repl(child)


def test_ctrl_c_stops_a_command_running_as_a_preview(fake_provider: FakeProvider,
                                                     spawn_ai: Any) -> None:
    """With previews on, a command that would ask runs first as a preview:
    Ctrl-C stops that run too, at once, and the history stays valid."""
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(command_call("sleep 30"))
    child.sendline("wait a while")
    ctrl_c_stops_the_sleep(child, fake_provider)
