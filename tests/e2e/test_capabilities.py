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
