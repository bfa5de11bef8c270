"""What `ai` says about the provider is true (#29): doctor contacts it, a stream cut
before its first content is retried, `config show` hides secrets and only secrets."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, RawReply, Reply

LITELLM = 'backend = "litellm"\n'


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def doctor_env(api_base: str) -> dict[str, str]:
    return {"OPENAI_API_KEY": "sk-doctor", "SWEBASH_MODEL": "openai/x",
            "SWEBASH_API_BASE": api_base}


def provider_line(stdout: str) -> str:
    (line,) = [x for x in stdout.splitlines() if "provider:" in x]
    return line


def test_doctor_fails_an_api_base_that_refuses_connections(workspace: Path) -> None:
    done = run_ai("doctor", cwd=workspace,
                  env=doctor_env(f"http://127.0.0.1:{refused_port()}"))
    line = provider_line(done.stdout)
    assert done.returncode == 1 and line.startswith("fail"), done.stdout
    assert "connection refused" in line and "sk-doctor" not in done.stdout


def test_the_twin_doctor_passes_a_provider_that_answers(workspace: Path,
                                                        fake_provider: FakeProvider) -> None:
    done = run_ai("doctor", cwd=workspace, env=doctor_env(fake_provider.url))
    line = provider_line(done.stdout)
    assert line.startswith("ok") and "answered" in line, done.stdout
    (probe,) = fake_provider.requests  # one models list, nothing sent to the model
    assert probe.path == "/models" and probe.headers["authorization"] == "Bearer sk-doctor"


def test_doctor_says_a_rejected_key(workspace: Path, fake_provider: FakeProvider) -> None:
    done = run_ai("doctor", cwd=workspace, env=doctor_env(fake_provider.url + "/nothing"))
    assert provider_line(done.stdout).startswith("warn"), done.stdout  # up, but no list there


@pytest.mark.parametrize("backend", ["", LITELLM])
def test_a_stream_cut_before_its_first_content_is_retried(backend: str, isolated: Path,
                                                          fake_provider: FakeProvider) -> None:
    (isolated / "config.toml").write_text(backend)
    # a 200 whose event stream ends at once: nothing, not even a usage report
    fake_provider.queue(RawReply(""), Reply(text="The answer."))
    done = run_ai(*model_args(fake_provider), "hi", env={"OPENAI_API_KEY": "sk-x"})
    assert (done.returncode, done.stdout) == (0, "The answer.\n"), done.stderr
    assert len(fake_provider.requests) == 2 and "retrying" in done.stderr


@pytest.mark.parametrize("backend", ["", LITELLM])
def test_the_twin_a_cut_after_content_is_not_duplicated(backend: str, isolated: Path,
                                                        fake_provider: FakeProvider) -> None:
    (isolated / "config.toml").write_text(backend)
    fake_provider.queue(Reply(text="Once upon a time.", chunk_size=4, cut_after=2),
                        Reply(text="Once upon a time."))
    done = run_ai(*model_args(fake_provider), "hi", env={"OPENAI_API_KEY": "sk-x"})
    assert done.returncode == 1 and done.stdout.count("Once") == 1, done.stdout
    assert len(fake_provider.requests) == 1


def test_the_twin_an_empty_answer_with_its_usage_is_not_retried(
        isolated: Path, fake_provider: FakeProvider) -> None:
    """A reply that really is empty (it reports its usage) reaches the user as such."""
    (isolated / "config.toml").write_text(LITELLM)
    fake_provider.queue(Reply(text=""), Reply(text="never asked"))
    done = run_ai(*model_args(fake_provider), "hi", env={"OPENAI_API_KEY": "sk-x"})
    assert done.returncode == 1 and "empty answer" in done.stderr
    assert len(fake_provider.requests) == 1


def test_config_show_hides_secrets_and_only_secrets(isolated: Path) -> None:
    (isolated / "config.toml").write_text(
        '[shell_init]\nkey = "ctrl-x"\n'
        '[mcp_servers.docs]\nurl = "http://127.0.0.1:1/mcp"\n'
        'headers = { Authorization = "Bearer hunter2" }\n')
    done = run_ai("config", "show")
    assert done.returncode == 0, done.stderr
    assert 'key = "ctrl-x"' in done.stdout  # the key binding is not a secret
    assert "hunter2" not in done.stdout and "***" in done.stdout  # the twin: a token is
