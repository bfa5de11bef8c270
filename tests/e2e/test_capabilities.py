"""find_files, web_fetch, background commands and undo through the installed `ai`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.tools.webpages import Site


def model_args(fp: FakeProvider) -> list[str]:
    return ["-m", "openai/x", "--api-base", fp.url]


def call(name: str, call_id: str = "c1", **arguments: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(call_id, name, json.dumps(arguments))])


def test_find_files_honours_gitignore_without_a_question(fake_provider: FakeProvider,
                                                         workspace: Path) -> None:
    for name in ("src/app.py", "build/gen.py", "notes.py", ".env"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("x\n")
    (workspace / ".gitignore").write_text("build/\n")
    fake_provider.queue(call("find_files", pattern="**/*.py", sort="path"), Reply(text="ok"))
    result = run_ai(*model_args(fake_provider), "which python files?", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert not is_error
    assert content.splitlines()[1:] == ["notes.py", "src/app.py"]


@pytest.mark.pty
def test_web_fetch_of_a_loopback_page_asks_saying_so(fake_provider: FakeProvider,
                                                     spawn_ai: Any, site: Site) -> None:
    fake_provider.queue(call("web_fetch", url=site.url + "/page.html"), Reply(text="Fetched."))
    child = spawn_ai(*model_args(fake_provider), "read the local page")
    child.expect("loopback or private")
    child.expect("Allow")
    child.sendline("y")
    child.expect("Fetched.")
    child.expect(pexpect.EOF)
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert not is_error and "# Hello" in content


def test_web_fetch_of_a_loopback_page_is_not_answered_by_yes(fake_provider: FakeProvider,
                                                             site: Site,
                                                             workspace: Path) -> None:
    fake_provider.queue(call("web_fetch", url=site.url + "/page.html"), Reply(text="ok"))
    result = run_ai("-y", *model_args(fake_provider), "read the local page", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert is_error and "--yes does not answer it" in content
    assert site.hits == []


def test_ai_undo_reverts_the_last_turn_and_refuses_without_a_terminal(
        fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    fake_provider.queue(
        Reply(tool_calls=[ToolCall("w1", "write_file", json.dumps({"path": "new.txt",
                                                                    "content": "n\n"})),
                          ToolCall("e1", "edit_file", json.dumps({"path": "app.py",
                                                                  "old_text": "x = 1",
                                                                  "new_text": "x = 2"}))]),
        Reply(text="done"))
    result = run_ai("-y", *model_args(fake_provider), "change things", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "app.py").read_text() == "x = 2\n"
    refused = run_ai("undo", cwd=workspace)
    assert refused.returncode == 1 and "no terminal" in refused.stderr
    assert (workspace / "app.py").read_text() == "x = 2\n"
    done = run_ai("undo", "--yes", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "-x = 2" in done.stdout and "+x = 1" in done.stdout
    assert (workspace / "app.py").read_text() == "x = 1\n"
    assert not (workspace / "new.txt").exists()
    again = run_ai("undo", "--yes", cwd=workspace)
    assert again.returncode == 0 and "nothing to undo" in again.stdout


@pytest.mark.pty
def test_repl_undo_and_rewind_across_three_turns(fake_provider: FakeProvider, spawn_ai: Any,
                                                 workspace: Path) -> None:
    for n in (1, 2, 3):
        fake_provider.queue(call("write_file", f"w{n}", path="f.txt", content=f"v{n}\n"),
                            Reply(text=f"wrote v{n}"))
    child = spawn_ai("-y", *model_args(fake_provider))
    for n in (1, 2, 3):
        child.expect("swebash>")
        child.sendline(f"write version {n}")
        child.expect(f"wrote v{n}")
    child.expect("swebash>")
    child.sendline("/undo")
    child.expect("turn 3")
    child.expect(r"Undo these changes\? \[y/N\]")
    child.sendline("y")
    child.expect("restored 1 file")
    assert (workspace / "f.txt").read_text() == "v2\n"
    child.expect("swebash>")
    child.sendline("/rewind 2")
    child.expect(r"Rewind to before turn 2\? \[y/N\]")
    child.sendline("y")
    child.expect("rewound")
    assert (workspace / "f.txt").read_text() == "v1\n"
    fake_provider.queue(Reply(text="fresh answer"))
    child.expect("swebash>")
    child.sendline("what now?")
    child.expect("fresh answer")
    child.expect("swebash>")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    sent = [m.get("content") for m in fake_provider.requests[-1].body["messages"]
            if m["role"] == "user"]
    assert "write version 1" in str(sent) and "write version 2" not in str(sent)
    assert "write version 3" not in str(sent) and "what now?" in str(sent), sent
