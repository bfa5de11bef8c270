"""`ai -s` (one command, then execute / describe / abort) and `ai --explain`."""

from __future__ import annotations

from typing import Any

import pytest

from swebash_py.shell_helper import extract_command
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply


@pytest.mark.parametrize(("answer", "command"), [
    ("```sh\nfind . -size +100M\n```", "find . -size +100M"),
    ("Here:\n```bash\ndu -sh * | sort -h\n```\nDone.", "du -sh * | sort -h"),
    ("ls -la", "ls -la"),
    ("", None),
])
def test_extract_command(answer: str, command: str | None) -> None:
    assert extract_command(answer) == command


def test_explain_sends_the_command_without_tools(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="Extracts a gzipped tarball, verbosely."))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "--explain",
                    "tar -xzvf a.tgz")
    assert result.returncode == 0, result.stderr
    assert "Extracts a gzipped tarball" in result.stdout
    body = fake_provider.requests[0].body
    assert "tools" not in body
    assert "tar -xzvf a.tgz" in body["messages"][-1]["content"]


@pytest.mark.pty
def test_shell_mode_executes_the_suggested_command(fake_provider: FakeProvider,
                                                   spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text="```sh\necho suggested-$((40+2))\n```"))
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url, "-s", "say 42")
    child.expect(r"\[a\]bort: ")
    child.sendline("e")
    child.expect("suggested-42")
    child.wait()
    child.close()
    assert child.exitstatus == 0


@pytest.mark.pty
def test_shell_mode_abort_runs_nothing(fake_provider: FakeProvider, spawn_ai: Any,
                                       workspace: Any) -> None:
    fake_provider.queue(Reply(text="```sh\ntouch should-not-exist\n```"))
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url, "-s", "make a file")
    child.expect(r"\[a\]bort: ")
    child.sendline("a")
    child.wait()
    child.close()
    assert child.exitstatus == 0
    assert not (workspace / "should-not-exist").exists()


@pytest.mark.parametrize(("text", "action"), [
    ("e", "execute"), ("execute", "execute"), ("y", "execute"), ("d", "edit"),
    ("edit", "edit"), ("D", "describe"), ("describe", "describe"), ("", "abort"),
    ("a", "abort"), ("whatever", "abort"), (" e \n", "execute"),
])
def test_parse_choice(text: str, action: str) -> None:
    from swebash_py.shell_helper import parse_choice

    assert parse_choice(text) == action
