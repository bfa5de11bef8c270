"""One clear line and exit code 1 for each error a user can hit (#2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import run_ai
from tests.fakeprovider import ErrorReply, FakeProvider, Reply


def one_line(stderr: str) -> str:
    """The one error line (retry notes may come before it)."""
    lines = [line for line in stderr.splitlines() if line.startswith("ai: ")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_missing_api_key_names_the_variable() -> None:
    result = run_ai("-m", "openai/gpt-4o-mini", "hi")
    assert result.returncode == 1
    assert "OPENAI_API_KEY" in one_line(result.stderr)


def test_missing_anthropic_key_names_its_variable() -> None:
    result = run_ai("-m", "anthropic/claude-sonnet-4-5", "hi")
    assert result.returncode == 1
    assert "ANTHROPIC_API_KEY" in one_line(result.stderr)


def test_authentication_failure(fake_provider: FakeProvider) -> None:
    fake_provider.queue(ErrorReply(401))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    assert "authentication failed" in one_line(result.stderr)
    assert len(fake_provider.requests) == 1  # never retried


def test_unknown_model_on_an_openai_compatible_server(fake_provider: FakeProvider) -> None:
    fake_provider.queue(ErrorReply(404, message="The model `nope` does not exist"))
    result = run_ai("-m", "openai/nope", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    line = one_line(result.stderr)
    assert "model not found" in line and "nope" in line


def test_unknown_provider_through_litellm() -> None:
    """Said before litellm is imported now (provider.modelnames), same exit and words."""
    result = run_ai("-m", "no-such-provider/some-model", "hi", timeout=120)
    assert result.returncode == 1
    assert "unknown model 'no-such-provider/some-model'" in one_line(result.stderr)


def test_rate_limited_after_retries(fake_provider: FakeProvider, isolated: Path) -> None:
    (isolated / "config.toml").write_text("max_retries = 2\n")
    fake_provider.queue(*[ErrorReply(429, headers={"retry-after": "0"})] * 3)
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    line = one_line(result.stderr)
    assert "rate limited" in line and "after 2 retries" in line
    assert len(fake_provider.requests) == 3


def test_a_5xx_is_retried_then_answered(fake_provider: FakeProvider) -> None:
    fake_provider.queue(ErrorReply(503, headers={"retry-after": "0"}), Reply(text="recovered"))
    result = run_ai("-m", "anthropic/claude-x", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 0, result.stderr
    assert "recovered" in result.stdout
    assert len(fake_provider.requests) == 2


def test_provider_unreachable(isolated: Path) -> None:
    (isolated / "config.toml").write_text("max_retries = 1\n")
    result = run_ai("-m", "openai/x", "--api-base", "http://127.0.0.1:9", "hi")
    assert result.returncode == 1
    assert "cannot reach 127.0.0.1:9" in one_line(result.stderr)
    assert "retrying in" in result.stderr  # a connection error is retried


def test_context_too_long_recovers_once_then_reports(fake_provider: FakeProvider) -> None:
    fake_provider.queue(ErrorReply.context_exceeded(), ErrorReply.context_exceeded())
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    assert "context too long" in result.stderr
    assert len(fake_provider.requests) == 2  # one recovery, never a loop


def test_stream_cut_midway_keeps_the_partial_answer(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="The first part arrives, then nothing.", chunk_size=4,
                              cut_after=4))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    assert result.stdout.startswith("The first part")
    assert "stream" in one_line(result.stderr).lower()


def test_bad_config_names_file_key_and_problem(isolated: Path) -> None:
    config = isolated / "config.toml"
    config.write_text("[tools]\ncommand_timeout = 'soon'\n")
    result = run_ai("hi")
    assert result.returncode == 1
    line = one_line(result.stderr)
    assert str(config) in line and "tools.command_timeout" in line


def test_unknown_config_key(isolated: Path) -> None:
    (isolated / "config.toml").write_text("modle = 'x'\n")
    line = one_line(run_ai("hi").stderr)
    assert "'modle'" in line and "unknown key" in line


def test_bad_approval_flag_is_a_usage_error() -> None:
    result = run_ai("--approval", "sometimes", "hi")
    assert result.returncode == 2
    assert "sometimes" in result.stderr


def test_approval_and_yes_naming_different_modes_is_a_usage_error() -> None:
    result = run_ai("--approval", "strict", "-y", "hi")
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert "--approval strict" in line and "--yes" in line


def test_debug_shows_the_traceback(fake_provider: FakeProvider) -> None:
    fake_provider.queue(ErrorReply(401))
    result = run_ai("--debug", "-m", "openai/x", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "authentication failed" in result.stderr


def test_no_terminal_denies_with_a_hint_and_one_warning(fake_provider: FakeProvider,
                                                        workspace: Path) -> None:
    import json

    from tests.agent.helpers import sent_results
    from tests.fakeprovider import ToolCall

    args = json.dumps({"path": "note.txt", "content": "x"})
    fake_provider.queue(Reply(tool_calls=[ToolCall("w1", "write_file", args)]),
                        Reply(text="I could not write it."))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "write a note",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "note.txt").exists()
    (sent,) = sent_results(fake_provider.requests[1])
    assert sent[2] and "no terminal" in sent[1] and "--yes" in sent[1]
    assert "write_file(" in sent[1]  # the allow rule that would cover it
    warnings = [line for line in result.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "write_file was not run" in warnings[0]


def test_yes_runs_without_a_terminal(fake_provider: FakeProvider, workspace: Path) -> None:
    import json

    from tests.fakeprovider import ToolCall

    args = json.dumps({"path": "note.txt", "content": "yes\n"})
    fake_provider.queue(Reply(tool_calls=[ToolCall("w1", "write_file", args)]),
                        Reply(text="Written."))
    result = run_ai("-y", "-m", "openai/x", "--api-base", fake_provider.url, "write",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "note.txt").read_text() == "yes\n"


@pytest.mark.parametrize("args", [("-m", "openai/x", "--api-base", "http://127.0.0.1:9", "hi"),
                                  ("sessions", "list")])
def test_an_unusable_data_directory_is_one_line(args: tuple[str, ...]) -> None:
    result = run_ai(*args, env={"SWEBASH_HOME": "/proc/nope"})
    assert result.returncode == 1
    assert result.stderr.startswith("ai: cannot write the data directory /proc/nope")
    assert "SWEBASH_HOME" in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_an_unusable_data_directory_shows_the_traceback_with_debug() -> None:
    result = run_ai("--debug", "-m", "openai/x", "--api-base", "http://127.0.0.1:9", "hi",
                    env={"SWEBASH_HOME": "/proc/nope"})
    assert result.returncode == 1 and "Traceback" in result.stderr
