"""The smaller things a new user meets: help, sessions list, config show, narrow terminals."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import AI, ai_env, run_ai
from tests.fakeprovider import FakeProvider, Reply


def test_ai_help_shows_the_help_instead_of_asking_the_model() -> None:
    result = run_ai("help")
    assert result.returncode == 0 and result.stdout.startswith("Usage: ai ")
    assert "forget RULE" in result.stdout  # `config forget` is documented


def test_swebash_help_names_swebash() -> None:
    import subprocess

    swebash = str(Path(AI).with_name("swebash"))
    result = subprocess.run([swebash, "--help"], capture_output=True, text=True,
                            env=ai_env(), timeout=30)
    assert result.stdout.startswith("Usage: swebash [OPTIONS]")
    assert "       swebash COMMAND" in result.stdout


def test_sessions_list_has_a_header_in_the_order_its_help_names(
        fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="Hi."))
    assert run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hello").returncode == 0
    import pexpect

    piped = run_ai("sessions", "list").stdout.splitlines()
    assert len(piped) == 1 and "1 turn " in piped[0] and "1 turns" not in piped[0]
    shown = pexpect.run(f"{AI} sessions list", env=ai_env(), encoding="utf-8", timeout=30)
    lines = [line for line in shown.splitlines() if line.strip()]
    assert lines[0].split() == ["ID", "UPDATED", "TURNS", "DIRECTORY", "MODEL", "TITLE"]
    assert lines[1].split()[0] == piped[0].split()[0]
    helped = " ".join(run_ai("sessions", "list", "--help").stdout.split())
    assert "id, updated, turns, directory, model, title" in helped


def test_config_show_is_toml_and_says_where_each_value_came_from(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("temperature = 0.2\n")
    result = run_ai("config", "show", env={"SWEBASH_CONFIG": str(config),
                                           "SWEBASH_MODEL": "openai/gpt-4o"})
    assert result.returncode == 0, result.stderr
    parsed = tomllib.loads(result.stdout)  # valid TOML, unset keys are comments
    assert parsed["temperature"] == 0.2 and "max_tokens" not in parsed
    assert 'temperature = 0.2  # config file' in result.stdout
    assert 'model = "openai/gpt-4o"  # environment $SWEBASH_MODEL' in result.stdout
    assert "max_iterations = 25  # default" in result.stdout


def test_config_show_works_on_a_broken_config_and_suggests_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('modle = "openai/gpt-4o"\n')
    result = run_ai("config", "show", env={"SWEBASH_CONFIG": str(config)})
    assert result.returncode == 1
    assert "key 'modle': unknown key; did you mean 'model'?" in result.stderr
    assert "could not be used" in result.stdout and "max_iterations = 25" in result.stdout
    asked = run_ai("-m", "openai/x", "hi", env={"SWEBASH_CONFIG": str(config)})
    assert "did you mean 'model'?" in asked.stderr and asked.returncode == 1


@pytest.mark.parametrize("columns", [50, 60, 100])
def test_the_toolbar_fits_the_terminal(columns: int) -> None:
    from swebash_py.repl.session import toolbar_text

    text = toolbar_text("anthropic/claude-sonnet-4-5-20250929", "0193a2b4c5d6e7f8", "12%",
                        "auto-edit", columns)
    assert len(text) < columns and "claude" in text and "12%" in text


def test_the_answer_line_fits_fifty_columns() -> None:
    from swebash_py.ui.question import PROMPT, prompt_for

    assert prompt_for(100) == PROMPT
    short = prompt_for(50)
    assert short.startswith("Allow?") and len(short) <= 50 - 15  # room to type


@pytest.mark.pty
def test_a_fifty_column_repl_question(fake_provider: FakeProvider, spawn_ai: Any,
                                      workspace: Path) -> None:
    import json

    import pexpect

    from tests.fakeprovider import ToolCall

    fake_provider.queue(Reply(tool_calls=[ToolCall("r1", "run_command",
                                                   json.dumps({"command": "touch made"}))]),
                        Reply(text="all-done-here"))
    child = pexpect.spawn(AI, ["-m", "openai/x", "--api-base", fake_provider.url],
                          cwd=str(workspace), env=ai_env({"COLUMNS": "50"}),
                          encoding="utf-8", timeout=30, dimensions=(30, 50))
    try:
        child.expect("swebash>")
        child.sendline("run it")
        child.expect(r"Allow( these changes)?\? \[y/a/n\] or an instruction:")  # a preview
        child.sendline("y")
        child.expect("all-done-here")
        child.expect("swebash>")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.terminate(force=True)


@pytest.mark.pty
def test_no_cpr_warning_in_a_terminal_that_does_not_answer(fake_provider: FakeProvider,
                                                           spawn_ai: Any) -> None:
    import pexpect

    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url,
                     env={"PROMPT_TOOLKIT_NO_CPR": ""})  # pexpect answers no CPR
    child.expect("swebash>")
    # prompt-toolkit gives up on the answer after 2 s and would warn then
    assert child.expect(["support cursor position", pexpect.TIMEOUT], timeout=4) == 1
    child.sendline("/exit")
    child.expect(pexpect.EOF)


def test_a_turn_that_failed_for_want_of_a_key_leaves_no_session() -> None:
    env = {"ANTHROPIC_API_KEY": ""}
    failed = run_ai("-m", "anthropic/claude-x", "hello", env=env)
    assert failed.returncode == 1 and "no API key" in failed.stderr
    assert run_ai("sessions", "list").stdout.strip() == "no sessions yet"


def test_the_twin_a_turn_that_ran_leaves_its_session(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="Hi."))
    assert run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hello").returncode == 0
    assert "no sessions yet" not in run_ai("sessions", "list").stdout
