"""Provider errors and unusual finishes reach the user of the installed `ai` as
one line in our words, whichever backend served the model (#14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import run_ai
from tests.fakeprovider import ErrorReply, FakeProvider, RawReply

STREAMS = Path(__file__).parent.parent / "streams"
LEAKS = ("b'", "Exception", "Error:", "Traceback", "SSLContext", "0x", "LLM Provider NOT",
         "litellm", "int()")


def the_line(stderr: str) -> str:
    """The one `ai: ` line, free of litellm's internals."""
    lines = [line for line in stderr.splitlines() if line.startswith("ai: ")]
    assert len(lines) == 1, stderr
    for leak in LEAKS:
        assert leak not in lines[0], lines[0]
    return lines[0]


def test_missing_key_advice_names_the_variable_only(isolated: Path) -> None:
    result = run_ai("-m", "openai/gpt-4o-mini", "hi")
    assert result.returncode == 1
    line = the_line(result.stderr)
    assert "OPENAI_API_KEY environment variable" in line and "config" not in line


def test_the_config_has_no_api_key_so_we_must_not_advise_it(isolated: Path) -> None:
    """The twin: the old advice ("api_key in the config") led to this error."""
    (isolated / "config.toml").write_text('api_key = "sk-test"\n')
    result = run_ai("-m", "openai/gpt-4o-mini", "hi")
    assert result.returncode == 1 and "api_key" in the_line(result.stderr)


def test_anthropic_400_through_litellm(fake_provider: FakeProvider, isolated: Path) -> None:
    (isolated / "config.toml").write_text('backend = "litellm"\nmax_retries = 0\n')
    fake_provider.queue(ErrorReply(400, message="messages.1: tool_use ids must be unique"))
    result = run_ai("-m", "anthropic/claude-x", "--api-base", fake_provider.url, "hi",
                    env={"ANTHROPIC_API_KEY": "test-key"}, timeout=120)
    assert result.returncode == 1
    line = the_line(result.stderr)
    assert "bad request" in line and "messages.1: tool_use ids must be unique" in line


def test_groq_error_event_midstream(fake_provider: FakeProvider, isolated: Path) -> None:
    (isolated / "config.toml").write_text("max_retries = 0\n")
    fake_provider.queue(RawReply((STREAMS / "groq_error_midstream.sse").read_text()))
    result = run_ai("-m", "groq/llama-3.3-70b-versatile", "--api-base", fake_provider.url,
                    "hi", env={"GROQ_API_KEY": "test-key"}, timeout=120)
    assert result.returncode == 1
    assert "broke midway" in the_line(result.stderr)
    assert "The port" in result.stdout  # what came before the error is kept


def test_ollama_unreachable(isolated: Path) -> None:
    (isolated / "config.toml").write_text("max_retries = 0\n")
    result = run_ai("-m", "ollama_chat/llama3.1", "--api-base", "http://127.0.0.1:9", "hi",
                    timeout=120)
    assert result.returncode == 1
    assert "cannot reach 127.0.0.1:9" in the_line(result.stderr)


def test_unknown_provider_prefix() -> None:
    result = run_ai("-m", "foo/bar", "hi", timeout=120)
    assert result.returncode == 1
    line = the_line(result.stderr)
    assert "unknown model 'foo/bar'" in line and "no provider is called 'foo'" in line


def test_missing_gemini_key_is_not_a_connection_failure(isolated: Path) -> None:
    result = run_ai("-m", "gemini/gemini-2.5-flash", "--api-base", "http://127.0.0.1:9", "hi",
                    timeout=120)
    assert result.returncode == 1
    assert "no API key" in the_line(result.stderr)
    assert "retrying" not in result.stderr  # a missing key is not retried


@pytest.mark.parametrize(("name", "model", "shown", "words"), [
    ("openai_refusal", "openai/gpt-4o", "I'm sorry, I can't help with that.",
     "the model declined to answer"),
    ("anthropic_refusal", "anthropic/claude-sonnet-4-5", "Here is a general",
     "the model declined to answer"),
    ("azure_content_filter", "openai/gpt-4o", "Here is how",
     "the provider's content filter stopped the answer"),
    ("gemini_compat_malformed", "openai/gemini-2.5-flash", "",
     "could not parse (MALFORMED_FUNCTION_CALL)"),
], ids=["openai-refusal", "anthropic-refusal", "content-filter", "gemini-malformed"])
def test_unusual_finishes_are_said(fake_provider: FakeProvider, name: str, model: str,
                                   shown: str, words: str) -> None:
    """Before: exit 1 with empty stdout and stderr."""
    fake_provider.queue(RawReply((STREAMS / f"{name}.sse").read_text()))
    result = run_ai("-m", model, "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    assert words in the_line(result.stderr)
    assert shown in result.stdout


def test_debug_keeps_the_detail(fake_provider: FakeProvider, isolated: Path) -> None:
    (isolated / "config.toml").write_text("max_retries = 0\n")
    fake_provider.queue(RawReply((STREAMS / "groq_error_midstream.sse").read_text()))
    result = run_ai("--debug", "-m", "groq/llama-3.3-70b-versatile", "--api-base",
                    fake_provider.url, "hi", env={"GROQ_API_KEY": "test-key"}, timeout=120)
    assert result.returncode == 1
    assert "ValueError" in result.stderr and "Traceback" in result.stderr


def test_debug_shows_the_raw_finish_reason(fake_provider: FakeProvider) -> None:
    fake_provider.queue(RawReply((STREAMS / "gemini_compat_malformed.sse").read_text()))
    result = run_ai("--debug", "-m", "openai/gemini-2.5-flash", "--api-base",
                    fake_provider.url, "hi")
    assert result.returncode == 1
    assert "[finish reason 'malformed_tool_call', from the provider " \
           "'MALFORMED_FUNCTION_CALL']" in result.stderr
