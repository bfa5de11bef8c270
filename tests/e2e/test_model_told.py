"""What the model is told, through the installed ``ai`` (request bodies checked):
the session's mode in the system prompt follows the flags, the schemas are
plain, and the new arguments (``replace_all``, pasted line numbers, ``workdir``,
``description``) do what the contract says. Each wall with its twin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import finish, model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.tools.schema_subsets import problems


def system_of(fp: FakeProvider, index: int = 0) -> str:
    messages = fp.requests[index].body["messages"]
    assert messages[0]["role"] == "system"
    return str(messages[0]["content"])


def tool_results(fp: FakeProvider, index: int = 1) -> list[str]:
    return [str(m["content"]) for m in fp.requests[index].body["messages"]
            if m["role"] == "tool"]


def call(name: str, **args: Any) -> Reply:
    return Reply(tool_calls=[ToolCall("c1", name, json.dumps(args))])


# ------------------------------------------------------------ the session's mode


def test_the_prompt_says_yolo_read_only_and_nobody_to_ask(fake_provider: FakeProvider,
                                                          workspace: Path) -> None:
    fake_provider.queue(Reply(text="hi"))
    done = run_ai(*model_args(fake_provider), "--approval", "yolo", "--sandbox", "read-only",
                  "hello", cwd=workspace)
    assert done.returncode == 0, done.stderr
    system = system_of(fake_provider)
    assert "approval yolo" in system and "read-only sandbox" in system
    assert "Nobody can answer questions here" in system  # piped: no terminal
    assert "approval ask" not in system


def test_twin_a_terminal_session_says_ask_and_that_the_user_answers(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    fake_provider.queue(Reply(text="hi there"))
    child = spawn_ai(*model_args(fake_provider), "hello")
    child.expect("hi there")
    assert finish(child) == 0
    system = system_of(fake_provider)
    assert "approval ask" in system and "The user answers questions" in system
    assert "Nobody can answer" not in system and "read-only sandbox" not in system


# ------------------------------------------------------------ the schemas


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_offered_schemas_are_plain_and_in_every_subset(fake_provider: FakeProvider,
                                                       workspace: Path, wire: str) -> None:
    fake_provider.queue(Reply(text="hi"))
    assert run_ai(*model_args(fake_provider, wire), "hello", cwd=workspace).returncode == 0
    tools = fake_provider.requests[0].body["tools"]
    schemas = {(t.get("function") or t)["name"]:
               (t["function"]["parameters"] if "function" in t else t["input_schema"])
               for t in tools}
    assert len(schemas) == 11
    text = json.dumps(schemas)
    assert '"title"' not in text and "anyOf" not in text and '"null"' not in text
    for name, schema in schemas.items():
        for consumer in ("openai", "gemini", "anthropic"):
            assert problems(schema, consumer) == [], (name, consumer)


# ------------------------------------------------------------ edit_file


def test_replace_all_and_a_pasted_numbered_old_text(fake_provider: FakeProvider,
                                                    workspace: Path) -> None:
    (workspace / "a.py").write_text("old = 1\nprint(old)\nold += 1\n")
    (workspace / "b.py").write_text("def f():\n    return 1\n")
    fake_provider.queue(call("edit_file", path="a.py", old_text="old", new_text="new",
                             replace_all=True),
                        call("edit_file", path="b.py", old_text="     2\t    return 1",
                             new_text="    return 2"),
                        Reply(text="done"))
    done = run_ai(*model_args(fake_provider), "-y", "rename", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert (workspace / "a.py").read_text() == "new = 1\nprint(new)\nnew += 1\n"
    assert (workspace / "b.py").read_text() == "def f():\n    return 2\n"
    assert "replaced 3 occurrences" in tool_results(fake_provider, 1)[0]
    assert "line-number prefixes" in tool_results(fake_provider, 2)[-1]


def test_twin_an_ambiguous_old_text_still_fails(fake_provider: FakeProvider,
                                                workspace: Path) -> None:
    (workspace / "a.py").write_text("old = 1\nprint(old)\n")
    fake_provider.queue(call("edit_file", path="a.py", old_text="old", new_text="new"),
                        Reply(text="done"))
    assert run_ai(*model_args(fake_provider), "-y", "rename", cwd=workspace).returncode == 0
    assert (workspace / "a.py").read_text() == "old = 1\nprint(old)\n"
    result = tool_results(fake_provider, 1)[0]
    assert result.startswith("Error:") and "matches 2 times" in result
    assert "replace_all" in result


# ------------------------------------------------------------ run_command


def test_workdir_runs_there(fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    fake_provider.queue(call("run_command", command="pwd", workdir="sub"), Reply(text="ok"))
    assert run_ai(*model_args(fake_provider), "-y", "where", cwd=workspace).returncode == 0
    result = tool_results(fake_provider, 1)[0]
    assert f"{workspace.resolve()}/sub\n" in result and "exit code 0" in result


def test_twin_a_workdir_outside_the_workspace_is_refused(fake_provider: FakeProvider,
                                                         workspace: Path,
                                                         tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    fake_provider.queue(call("run_command", command="touch ran", workdir=str(outside)),
                        call("run_command", command="touch ran", workdir="../elsewhere"),
                        Reply(text="ok"))
    assert run_ai(*model_args(fake_provider), "-y", "go", cwd=workspace).returncode == 0
    for index in (1, 2):
        result = tool_results(fake_provider, index)[-1]
        assert result.startswith("Error:") and "outside the workspace" in result
    assert not (outside / "ran").exists() and not (workspace / "ran").exists()


def test_description_is_in_the_question_and_the_audit(fake_provider: FakeProvider,
                                                      spawn_ai: Any, workspace: Path) -> None:
    fake_provider.queue(call("run_command", command="echo hi",
                             description="Say hi to check the shell works"),
                        Reply(text="said"))
    child = spawn_ai(*model_args(fake_provider), "--approval", "strict", "greet")
    child.expect("Say hi to check the shell works")
    child.expect("Allow")
    child.sendline("y")
    child.expect("said")
    assert finish(child) == 0
    done = run_ai("audit", "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["command"], r["description"]) for r in rows] == [
        ("echo hi", "Say hi to check the shell works")]


def test_twin_no_description_no_line_and_a_null_in_the_audit(
        fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(call("run_command", command="echo hi"), Reply(text="said"))
    assert run_ai(*model_args(fake_provider), "-y", "greet", cwd=workspace).returncode == 0
    rows = [json.loads(line) for line in
            run_ai("audit", "--json", cwd=workspace).stdout.splitlines()]
    assert [(r["command"], r["description"]) for r in rows] == [("echo hi", None)]
