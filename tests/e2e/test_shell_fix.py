"""`ai fix` and the history `ai shell-init` records (issue #30), in real bash,
zsh and fish in a pty with the snippet sourced, against the scripted provider."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pexpect
import pytest

from tests.e2e.test_shell_init import (
    ALT_BACKSLASH,
    CTRL_X_P,
    SHELLS,
    _dumped,
    _start,
    _wait_for,
)
from tests.fakeprovider import FakeProvider, Reply

pytestmark = pytest.mark.pty
FIX = "The subcommand is misspelled: psuh is push.\n```sh\ntouch fixed-marker\n```"


def _init(name: str) -> str:
    return "ai shell-init fish | source" if name == "fish" else f'eval "$(ai shell-init {name})"'


def _need(name: str) -> None:
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed")


def _records(isolated: Path) -> list[list[str]]:
    """Every recorded line of every terminal: [start, end, status, dir, line]."""
    found = sorted((isolated / "data" / "shellhist").glob("[!.]*"))  # not bash's scratch
    return [line.split("\t") for path in found for line in path.read_text().splitlines()]


def _recorded(isolated: Path, line: str) -> bool:
    return any(record[-1] == line for record in _records(isolated))


def _run(child: pexpect.spawn, isolated: Path, line: str) -> None:
    """Type ``line`` and wait until the hook recorded it (the prompt came back)."""
    child.sendline(line)
    _wait_for(lambda: _recorded(isolated, line), f"{line!r} recorded")


def _user_message(provider: FakeProvider, index: int = -1) -> str:
    return str(provider.requests[index].body["messages"][-1]["content"])


@pytest.mark.parametrize("name", list(SHELLS))
def test_ai_fix_sends_the_failure_and_r_runs_the_correction(
        name: str, fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    _need(name)
    fake_provider.queue(Reply(text=FIX))
    child = _start(SHELLS[name], workspace, fake_provider, _init(name))
    try:
        _run(child, isolated, "git psuh")
        child.sendline("ai fix")
        child.expect_exact("[r]un / [e]dit / [c]opy / [a]bort")
        sent = _user_message(fake_provider)
        assert "command: git psuh" in sent and "exit status: 1" in sent
        assert f"directory: {workspace}" in sent
        assert fake_provider.requests[0].body.get("tools")  # may investigate, as usual
        assert "psuh is push" in (child.before or "")  # the explanation is shown
        assert not (workspace / "fixed-marker").exists()
        child.sendline("r")
        _wait_for(lambda: (workspace / "fixed-marker").exists(), "the corrected command run")
    finally:
        child.terminate(force=True)


@pytest.mark.parametrize("name", list(SHELLS))
def test_the_key_on_an_empty_line_after_a_failure_leaves_the_fix_on_the_line(
        name: str, fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    _need(name)
    fake_provider.queue(Reply(text=FIX))
    child = _start(SHELLS[name], workspace, fake_provider, _init(name))
    try:
        _run(child, isolated, "git psuh")
        child.send(ALT_BACKSLASH)
        child.expect_exact("ai: thinking...")  # the indicator, in every shell
        fake_provider.wait_for_requests(1)
        assert "command: git psuh" in _user_message(fake_provider)
        assert not fake_provider.requests[0].body.get("tools")  # nothing to ask mid-line
        child.send(CTRL_X_P)
        _wait_for(lambda: _dumped(workspace) is not None, "the line buffer dump")
        assert _dumped(workspace) == ("touch fixed-marker", len("touch fixed-marker"))
        time.sleep(0.3)
        assert not (workspace / "fixed-marker").exists()  # on the line, not run
        child.send("\r")  # the twin: Enter runs it
        _wait_for(lambda: (workspace / "fixed-marker").exists(), "the marker after Enter")
    finally:
        child.terminate(force=True)


@pytest.mark.parametrize("name", list(SHELLS))
def test_the_key_on_an_empty_line_after_a_success_does_nothing(
        name: str, fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    """The twin of the test above: no failure, no question, the line stays empty."""
    _need(name)
    child = _start(SHELLS[name], workspace, fake_provider, _init(name))
    try:
        _run(child, isolated, "true")
        child.send(ALT_BACKSLASH + CTRL_X_P)
        _wait_for(lambda: _dumped(workspace) is not None, "the line buffer dump")
        assert _dumped(workspace) == ("", 0)
        assert fake_provider.requests == []
    finally:
        child.terminate(force=True)


USER_HOOKS = {
    "bash": "PROMPT_COMMAND='echo \"USER-HOOK=$?\"'; PS1='[$?]$ '; "
            "trap 'u=$?; [[ $BASH_COMMAND == echo\\ status* ]] && echo USER-DEBUG=$u' DEBUG",
    "zsh": "precmd() { echo \"USER-HOOK=$?\" }; PS1='[%?]$ '",
    "fish": "function __user_hook --on-event fish_postexec; echo USER-HOOK=$status; end; "
            "function fish_prompt; echo -n \"[$status]\\$ \"; end",
}


@pytest.mark.parametrize("name", list(SHELLS))
def test_the_users_own_hooks_still_run_and_the_status_is_kept(
        name: str, fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    _need(name)
    shell = SHELLS[name]
    shell = type(shell)(shell.argv, [*shell.setup, USER_HOOKS[name]])
    child = _start(shell, workspace, fake_provider, _init(name))
    try:
        failing = "sh -c 'exit 3'"
        _run(child, isolated, failing)
        child.expect_exact("USER-HOOK=3")
        child.expect_exact("[3]$ ")
        child.sendline("echo status=$status" if name == "fish" else "echo status=$?")
        if name == "bash":  # the user's own DEBUG trap still runs, and sees $?
            child.expect_exact("USER-DEBUG=3")
        child.expect_exact("status=3")
        assert [r[2] for r in _records(isolated) if r[-1] == failing] == ["3"]
    finally:
        child.terminate(force=True)


def test_two_terminals_do_not_see_each_others_history(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    fake_provider.queue(Reply(text="ok"))
    one = _start(SHELLS["bash"], workspace, fake_provider, _init("bash"))
    two = _start(SHELLS["bash"], workspace, fake_provider, _init("bash"))
    try:
        _run(one, isolated, "echo from-terminal-one")
        _run(two, isolated, "echo from-terminal-two")
        one.sendline("ai 'what did I just do' > answer.txt")
        fake_provider.wait_for_requests(1)
        sent = _user_message(fake_provider)
        assert "<shell_history>" in sent and "echo from-terminal-one" in sent
        assert "from-terminal-two" not in sent
        assert len(list((isolated / "data" / "shellhist").glob("[!.]*"))) == 2
    finally:
        one.terminate(force=True)
        two.terminate(force=True)


def test_a_secret_typed_on_the_command_line_is_stored_redacted(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    fake_provider.queue(Reply(text="ok"))
    child = _start(SHELLS["zsh" if shutil.which("zsh") else "bash"], workspace,
                   fake_provider, _init("zsh" if shutil.which("zsh") else "bash"))
    secret = "abcd1234efgh5678ijkl"
    try:
        child.sendline(f"export API_TOKEN={secret}")
        _run(child, isolated, "echo visible-line")
        child.sendline("ai 'hi' > answer.txt")
        fake_provider.wait_for_requests(1)
        sent = json.dumps(fake_provider.requests[0].body)
        assert secret not in sent and "API_TOKEN=[REDACTED]" in sent
        assert "echo visible-line" in sent  # the twin: an ordinary line goes as typed
        _wait_for(lambda: (workspace / "answer.txt").exists()
                  and "API_TOKEN=[REDACTED]" in str(_records(isolated)), "the rewrite")
        stored = "\n".join(r[-1] for r in _records(isolated))
        assert secret not in stored and "echo visible-line" in stored
    finally:
        child.terminate(force=True)


def test_history_false_records_nothing(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    """The twin is every test above: by default each command is recorded."""
    (isolated / "config.toml").write_text("[shell_init]\nhistory = false\n")
    child = _start(SHELLS["bash"], workspace, fake_provider, _init("bash"))
    try:
        child.sendline("git psuh; echo DONE-$((40+2))")
        child.expect_exact("DONE-42")
        child.sendline("ai fix; echo FIXED-$((40+3))")
        child.expect_exact("FIXED-43")
        assert "shell history is off" in (child.before or "")
        assert _records(isolated) == []
        assert fake_provider.requests == []
    finally:
        child.terminate(force=True)


def _history(isolated: Path, *records: str) -> dict[str, str]:
    """A terminal with ``records`` already recorded; the env that names it."""
    directory = isolated / "data" / "shellhist"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "t-1").write_text("".join(r + "\n" for r in records))
    return {"SWEBASH_TERM_ID": "t-1"}


def test_piped_ai_fix_prints_the_bare_sanitised_command(
        fake_provider: FakeProvider, isolated: Path) -> None:
    from tests.e2e.conftest import model_args, run_ai

    env = _history(isolated, "1\t2\t127\t/repo\tgti status", "1\t2\t0\t/repo\tls")
    fake_provider.queue(Reply(text="Typo.\n```sh\ngit status\x1b[2J\n```"))
    result = run_ai("fix", *model_args(fake_provider), env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "git status\n"
    sent = _user_message(fake_provider)
    assert "command: gti status" in sent and "exit status: 127" in sent
    assert "[exit 0] /repo$ ls" in sent  # the last commands go with it


def test_ai_fix_without_a_failure_or_a_fix_says_so(
        fake_provider: FakeProvider, isolated: Path) -> None:
    from tests.e2e.conftest import model_args, run_ai

    env = _history(isolated, "1\t2\t0\t/repo\tls")
    nothing = run_ai("fix", *model_args(fake_provider), env=env)
    assert nothing.returncode == 1 and "no failed command" in nothing.stderr
    assert fake_provider.requests == []
    env = _history(isolated, "1\t2\t1\t/repo\tcurl https://down.example")
    fake_provider.queue(Reply(text="The server is down; no command fixes that."))
    unfixable = run_ai("fix", *model_args(fake_provider), env=env)
    assert unfixable.returncode == 1 and unfixable.stdout == ""
    assert "no corrected command: The server is down" in unfixable.stderr
    no_shell = run_ai("fix", *model_args(fake_provider))
    assert no_shell.returncode == 2 and "no shell history for this terminal" in no_shell.stderr


def test_slash_fix_in_the_repl_offers_the_correction(
        spawn_ai: object, fake_provider: FakeProvider, isolated: Path, workspace: Path) -> None:
    from tests.e2e.conftest import exit_repl, start_repl

    env = _history(isolated, "1\t2\t1\t/repo\tgit psuh")
    fake_provider.queue(Reply(text=FIX), Reply(text="ok"))
    child = start_repl(spawn_ai, fake_provider, env=env)
    child.sendline("/fix")
    child.expect_exact("[r]un / [e]dit / [c]opy / [a]bort")
    assert "command: git psuh" in _user_message(fake_provider)
    child.sendline("r")
    _wait_for(lambda: (workspace / "fixed-marker").exists(), "the fix run as !command")
    exit_repl(child)


def test_a_provider_error_in_ai_fix_is_one_line(
        fake_provider: FakeProvider, isolated: Path) -> None:
    from tests.e2e.conftest import model_args, run_ai
    from tests.fakeprovider import ErrorReply

    env = _history(isolated, "1\t2\t1\t/repo\tgit psuh")
    fake_provider.queue(ErrorReply(401))
    result = run_ai("fix", *model_args(fake_provider), env=env)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("ai: ") and "Traceback" not in result.stderr
