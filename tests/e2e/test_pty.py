"""The installed `ai` in a pseudo-terminal: one-shot, approvals, Ctrl-C, the REPL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import exit_repl, finish, model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.pty


def write_call(path: str = "note.txt", content: str = "hello\n") -> Reply:
    args = json.dumps({"path": path, "content": content})
    return Reply(tool_calls=[ToolCall("w1", "write_file", args)])


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_one_shot_streams_rendered_markdown(fake_provider: FakeProvider, spawn_ai: Any,
                                            wire: str) -> None:
    fake_provider.queue(Reply(text="# Port check\n\nPort **8080** is free.\n", chunk_size=4))
    child = spawn_ai(*model_args(fake_provider, wire), "is 8080 busy?")
    child.expect("Port check")
    child.expect("8080")
    assert finish(child) == 0
    assert "**" not in child.before  # rendered, not raw markdown


def answer_a_write(spawn_ai: Any, fp: FakeProvider, answer: str, then: str) -> None:
    """A one-shot asks about write_file; ``answer`` it, see ``then``, exit 0."""
    fp.queue(write_call(), Reply(text=then))
    child = spawn_ai(*model_args(fp), "make a note")
    child.expect("write_file")
    child.expect("Allow")
    child.sendline(answer)
    child.expect(then)
    assert finish(child) == 0


def test_approve_a_write(fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    answer_a_write(spawn_ai, fake_provider, "y", "Wrote it.")
    assert (workspace / "note.txt").read_text() == "hello\n"


def test_deny_a_write(fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    answer_a_write(spawn_ai, fake_provider, "n", "Understood.")
    assert not (workspace / "note.txt").exists()
    (result,) = sent_results(fake_provider.requests[1])
    assert result[2] and result[1].endswith("denied by the user")
    assert "said instead" not in result[1]


def test_an_instruction_instead_reaches_the_model(fake_provider: FakeProvider, spawn_ai: Any,
                                                  workspace: Path) -> None:
    answer_a_write(spawn_ai, fake_provider, "call it notes.md instead", "OK, notes.md then.")
    assert not (workspace / "note.txt").exists()
    (result,) = sent_results(fake_provider.requests[1])
    assert result[1].endswith("denied by the user, who said instead: call it notes.md instead")


def test_always_is_remembered_for_the_next_run(fake_provider: FakeProvider, spawn_ai: Any,
                                               workspace: Path, isolated: Path) -> None:
    fake_provider.queue(write_call(content="one\n"), Reply(text="First."))
    child = spawn_ai(*model_args(fake_provider), "note one")
    child.expect("Allow")
    child.sendline("a")
    child.expect("First.")
    assert finish(child) == 0
    stored = json.loads((isolated / "data" / "approvals.json").read_text())
    assert any("write_file(" in rule for rules in stored.values() for rule in rules)
    fake_provider.queue(write_call(content="two\n"), Reply(text="Second."))
    child = spawn_ai(*model_args(fake_provider), "note two")
    child.expect("Second.")
    assert "Allow" not in child.before
    assert finish(child) == 0
    assert (workspace / "note.txt").read_text() == "two\n"


def test_ctrl_c_mid_answer_exits_130(fake_provider: FakeProvider, spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text="counting " * 300, chunk_size=9, delay=0.02))
    child = spawn_ai(*model_args(fake_provider), "count")
    child.expect("counting")
    child.sendcontrol("c")
    assert finish(child) == 130
    fake_provider.wait_for_disconnect(1)


def test_repl_turn_shell_command_ctrl_c_and_exit(fake_provider: FakeProvider,
                                                 spawn_ai: Any) -> None:
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(Reply(text="Hello from the model."))
    child.sendline("hello")
    child.expect("Hello from the model.")
    child.expect("swebash>")
    child.sendline("!echo shell-said-$((40+2))")
    child.expect("shell-said-42")  # its output (the command line says $((40+2)))
    child.expect("swebash>")
    fake_provider.queue(Reply(text="tick " * 400, chunk_size=5, delay=0.02))
    child.sendline("what did the shell say?")
    child.expect("tick")
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect("swebash>")
    assert "shell-said-42" in json.dumps(fake_provider.requests[1].body)
    fake_provider.queue(Reply(text="Still here."))
    child.sendline("again")
    child.expect("Still here.")
    child.expect("swebash>")
    child.sendcontrol("c")  # on an empty prompt: a hint, not an exit
    child.expect("/exit")
    exit_repl(child)


def test_repl_approves_and_denies_commands(fake_provider: FakeProvider, spawn_ai: Any,
                                           workspace: Path) -> None:
    run = Reply(tool_calls=[ToolCall("r1", "run_command",
                                     '{"command": "touch made-by-tool"}')])
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(run, Reply(text="Done running."))
    child.sendline("make the file")
    child.expect("touch made-by-tool")
    child.expect("Allow")
    child.sendline("y")
    child.expect("Done running.")
    child.expect("swebash>")
    assert (workspace / "made-by-tool").exists()
    (workspace / "made-by-tool").unlink()
    fake_provider.queue(run, Reply(text="Not running it."))
    child.sendline("make it again")
    child.expect("Allow")
    child.sendline("n")
    child.expect("Not running it.")
    child.expect("swebash>")
    assert not (workspace / "made-by-tool").exists()
    child.sendeof()
    assert finish(child) == 0


def test_repl_question_mark_suggests_and_runs_a_command(fake_provider: FakeProvider,
                                                         spawn_ai: Any) -> None:
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(Reply(text="```sh\necho repl-$((6*7))\n```"))
    child.sendline("? print 42")
    child.expect(r"\[a\]bort:")
    child.sendline("e")
    child.expect("repl-42")
    child.expect("swebash>")
    fake_provider.queue(Reply(text="It prints the answer."))
    child.sendline("?? echo repl-42")
    child.expect("It prints the answer.")
    assert "Explain this shell command" in json.dumps(fake_provider.requests[-1].body)
    exit_repl(child)


# The slash commands' logic is tested in-process with pipe input: tests/repl/.


def test_ai_tools_lists_every_tool_with_its_confirmation() -> None:
    result = run_ai("tools")
    assert result.returncode == 0, result.stderr
    for name in ("read_file", "list_directory", "search_files", "write_file", "edit_file",
                 "run_command", "web_search"):
        assert name in result.stdout
    assert "approval mode: ask" in result.stdout


def test_repl_compact_summarises_and_the_summary_is_used(fake_provider: FakeProvider,
                                                          spawn_ai: Any) -> None:
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("/compact")
    child.expect("nothing to compact yet")
    for i in range(3):
        fake_provider.queue(Reply(text=f"Answer number {i}."))
        child.sendline(f"question number {i}")
        child.expect(f"Answer number {i}.")
    fake_provider.queue(Reply(text="SUMMARY: three questions were answered."))
    child.sendline("/compact")
    child.expect("(?i)compact")
    fake_provider.queue(Reply(text="Fine."))
    child.sendline("what next?")
    child.expect("Fine.")
    body = fake_provider.requests[-1].body
    last = json.dumps(body)
    assert "SUMMARY: three questions were answered." in last
    # the turns behind the summary are gone as turns (the structured state still
    # quotes the user's own words verbatim inside the summary, #31)
    assert not [m for m in body["messages"] if m.get("content") == "question number 0"]
    assert "Answer number 0." not in last
    exit_repl(child)


def test_typing_ahead_of_the_full_prompt_is_kept(fake_provider: FakeProvider,
                                                 spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text="Got your early words."))
    child = start_repl(spawn_ai, fake_provider)  # the plain prompt, drawn before the heavy imports
    child.sendline("typed before prompt-toolkit was ready")
    child.expect("Got your early words.")
    assert "typed before prompt-toolkit was ready" in json.dumps(fake_provider.requests[0].body)
    exit_repl(child)


def test_ctrl_c_at_the_early_prompt_does_not_exit(fake_provider: FakeProvider,
                                                  spawn_ai: Any) -> None:
    child = start_repl(spawn_ai, fake_provider)
    child.sendcontrol("c")
    child.expect("/help for commands")  # the full prompt still arrives
    child.expect("swebash>")
    assert child.isalive()
    exit_repl(child)


def test_repl_asks_one_question_at_a_time(fake_provider: FakeProvider, spawn_ai: Any,
                                          workspace: Path) -> None:
    (workspace / "inside.txt").write_text("in\n")
    calls = [ToolCall("c1", "read_file", json.dumps({"path": "/etc/hostname"})),
             ToolCall("c2", "read_file", json.dumps({"path": "inside.txt"})),
             ToolCall("c3", "list_directory", json.dumps({"path": "/etc"}))]
    fake_provider.queue(Reply(tool_calls=calls), Reply(text="All three read."))
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("read things")
    child.expect("/etc/hostname")
    child.expect("Allow")
    child.sendline("y")
    child.expect("list_directory")
    child.expect("Allow")
    child.sendline("y")
    child.expect("All three read.")
    results = sent_results(fake_provider.requests[1])
    assert [r[0] for r in results] == ["c1", "c2", "c3"] and not any(r[2] for r in results)
    exit_repl(child)


def test_repl_continue_without_a_session_is_one_line(spawn_ai: Any,
                                                     fake_provider: FakeProvider) -> None:
    child = spawn_ai("-c", *model_args(fake_provider))
    child.expect("no earlier session to continue here")
    assert finish(child) == 1


@pytest.mark.parametrize("key", ["c", "d"])
def test_repl_question_mark_choice_survives_ctrl_c_and_ctrl_d(fake_provider: FakeProvider,
                                                              spawn_ai: Any, key: str) -> None:
    fake_provider.queue(Reply(text="```sh\ntouch never\n```"))
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("? make a file")
    child.expect(r"\[a\]bort:")
    child.sendcontrol(key)
    child.expect("aborted")
    child.expect("swebash>")
    exit_repl(child)


def test_ctrl_c_during_compact_returns_to_the_prompt(fake_provider: FakeProvider,
                                                     spawn_ai: Any) -> None:
    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(Reply(text="hello there"))
    child.sendline("hi")
    child.expect("hello there")
    fake_provider.queue(Reply(text="summary " * 40, delay=0.2))
    child.sendline("/compact")
    fake_provider.wait_for_requests(2)
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect("swebash>")
    exit_repl(child)


def test_compact_that_fails_says_so(fake_provider: FakeProvider, spawn_ai: Any) -> None:
    from tests.fakeprovider import ErrorReply

    child = start_repl(spawn_ai, fake_provider)
    fake_provider.queue(Reply(text="hello there"))
    child.sendline("hi")
    child.expect("hello there")
    fake_provider.queue(ErrorReply(400))
    child.sendline("/compact")
    child.expect("nothing was compacted")
    exit_repl(child)
