"""`ai -s` (one command, then execute / describe / abort) and `ai --explain`."""

from __future__ import annotations

import io
from typing import Any

import pexpect
import pytest

from swebash_py.front.shell_helper import extract_command
from tests.e2e.conftest import finish, model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply


def suggest(spawn_ai: Any, fp: FakeProvider, task: str, log: io.StringIO | None = None
            ) -> pexpect.spawn:
    """``ai -s TASK`` in a pty, at its execute / describe / abort choice."""
    child: pexpect.spawn = spawn_ai(*model_args(fp), "-s", task)
    child.logfile_read = log
    child.expect(r"\[a\]bort: ")
    return child


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
    child = suggest(spawn_ai, fake_provider, "say 42")
    child.sendline("e")
    child.expect("suggested-42")
    assert finish(child) == 0


@pytest.mark.pty
def test_shell_mode_abort_runs_nothing(fake_provider: FakeProvider, spawn_ai: Any,
                                       workspace: Any) -> None:
    fake_provider.queue(Reply(text="```sh\ntouch should-not-exist\n```"))
    child = suggest(spawn_ai, fake_provider, "make a file")
    child.sendline("a")
    assert finish(child) == 0
    assert not (workspace / "should-not-exist").exists()


@pytest.mark.parametrize(("text", "action"), [
    ("e", "execute"), ("E", "execute"), ("execute", "execute"), ("y", "execute"),
    ("d", "edit"), ("edit", "edit"), ("D", "describe"), ("describe", "describe"),
    ("", "abort"), ("a", "abort"), ("whatever", "unclear"), (" e \n", "execute"),
])
def test_parse_choice(text: str, action: str) -> None:
    from swebash_py.front.shell_helper import parse_choice

    assert parse_choice(text) == action


def test_piped_shell_mode_prints_the_bare_command(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="Here you go:\n```sh\nfind . -size +100M\n```\nEnjoy."))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "-s", "big files")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "find . -size +100M\n"  # so $(ai -s ...) works


def _screen(raw: str) -> list[str]:
    import pyte

    term = pyte.Screen(100, 40)
    pyte.Stream(term).feed(raw)
    return [line.rstrip() for line in term.display if line.strip()]


@pytest.mark.pty
def test_shell_mode_shows_the_command_once_and_describe_comes_back(
        fake_provider: FakeProvider, spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text="```sh\necho suggested-$((40+2))\n```"),
                        Reply(text="It prints a number."))
    seen = io.StringIO()
    child = suggest(spawn_ai, fake_provider, "say 42", log=seen)
    child.sendline("D")
    child.expect("It prints a number.")
    child.expect(r"\[a\]bort: ")  # back at the choice, not gone
    child.sendline("what")
    child.expect("answer e \\(execute\\)")
    child.expect(r"\[a\]bort: ")
    child.sendline("E")
    child.expect("suggested-42")
    assert finish(child) == 0
    before_menu = "\n".join(_screen(seen.getvalue())).split("[a]bort")[0]
    assert before_menu.count("echo suggested-$((40+2))") == 1  # shown once, not twice


@pytest.mark.pty
def test_shell_mode_enter_aborts_and_says_so(fake_provider: FakeProvider, spawn_ai: Any,
                                             workspace: Any) -> None:
    fake_provider.queue(Reply(text="```sh\ntouch should-not-exist\n```"))
    child = suggest(spawn_ai, fake_provider, "make a file")
    child.sendline("")
    child.expect("aborted: nothing was run")
    assert finish(child) == 0
    assert not (workspace / "should-not-exist").exists()


@pytest.mark.pty
def test_repl_question_mark_describe_comes_back_to_the_choice(fake_provider: FakeProvider,
                                                              spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text="```sh\necho repl-$((6*7))\n```"),
                        Reply(text="It prints forty-two."))
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("? print 42")
    child.expect(r"\[a\]bort:")
    child.sendline("D")
    child.expect("It prints forty-two.")
    child.expect(r"\[a\]bort:")
    child.sendline("e")
    child.expect("repl-42")
    child.expect("swebash>")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
