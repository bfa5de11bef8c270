"""Local models through the installed ``ai``: num_ctx reaches an Ollama-shaped
server on both routes, calls written as text are run (prose is not), and an
answer stuck on one line is stopped (a short repetitive list is not)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, RawReply, Reply


def ollama_ndjson(text: str) -> RawReply:
    """Ollama's native /api/chat stream (one JSON object a line)."""
    lines = [{"model": "qwen", "created_at": "2026-01-01T00:00:00Z",
              "message": {"role": "assistant", "content": text}, "done": False},
             {"model": "qwen", "created_at": "2026-01-01T00:00:01Z",
              "message": {"role": "assistant", "content": ""}, "done": True,
              "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 2}]
    return RawReply("".join(json.dumps(line) + "\n" for line in lines),
                    content_type="application/x-ndjson", parts=1)


def test_num_ctx_on_the_litellm_route(fake_provider: FakeProvider, workspace: Path,
                                      monkeypatch: pytest.MonkeyPatch,
                                      tmp_path: Path) -> None:
    config = tmp_path / "ctx.toml"
    config.write_text("context_window = 12345\n")
    monkeypatch.setenv("SWEBASH_CONFIG", str(config))
    fake_provider.queue(ollama_ndjson("hello from ollama"))
    done = run_ai("-m", "ollama_chat/qwen", "--api-base", fake_provider.url, "--no-tools",
                  "hi", cwd=workspace, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "hello from ollama" in done.stdout
    request = fake_provider.requests[0]
    assert request.path == "/api/chat" and request.body["options"]["num_ctx"] == 12345


def _free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_num_ctx_on_the_direct_route_and_twin_not_for_other_servers(
        fake_provider: FakeProvider, workspace: Path) -> None:
    if not _free(11434):
        pytest.skip("port 11434 (Ollama's) is taken here")
    with FakeProvider(port=11434) as ollama:
        ollama.queue(Reply(text="hi"))
        done = run_ai("-m", "qwen", "--api-base", ollama.url, "hi", cwd=workspace)
        assert done.returncode == 0, done.stderr
        assert ollama.requests[0].body["options"] == {"num_ctx": 32_768}  # the default window
    fake_provider.queue(Reply(text="hi"))  # an OpenAI-compatible server elsewhere
    assert run_ai("-m", "qwen", "--api-base", fake_provider.url, "hi",
                  cwd=workspace).returncode == 0
    assert "options" not in fake_provider.requests[0].body


def test_a_tool_call_written_as_text_is_run_and_its_result_goes_back(
        fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("the secret word is pelican\n")
    call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>'
    fake_provider.queue(Reply(text="Let me look.\n" + call, chunk_size=7),
                        Reply(text="It says pelican."))
    done = run_ai("-m", "qwen", "--api-base", fake_provider.url, "what is in notes",
                  cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "<tool_call>" not in done.stdout and "It says pelican." in done.stdout
    second = fake_provider.requests[1].body["messages"]
    calls = [m for m in second if m["role"] == "assistant" and m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "read_file"
    results = [m["content"] for m in second if m["role"] == "tool"]
    assert len(results) == 1 and "pelican" in results[0]


def test_twin_prose_about_tool_call_is_not_a_call(fake_provider: FakeProvider,
                                                 workspace: Path) -> None:
    prose = ("A server that does not parse <tool_call> tags shows them as text; "
             'e.g. <tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>.')
    fake_provider.queue(Reply(text=prose, chunk_size=5))
    done = run_ai("-m", "qwen", "--api-base", fake_provider.url, "explain", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert len(fake_provider.requests) == 1
    assert "no_such_tool" in done.stdout and "shows them as text" in done.stdout


def test_text_calls_off_by_config(fake_provider: FakeProvider, workspace: Path,
                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "off.toml"
    config.write_text("[tools]\ntext_tool_calls = false\n")
    monkeypatch.setenv("SWEBASH_CONFIG", str(config))
    (workspace / "notes.txt").write_text("x\n")
    fake_provider.queue(Reply(
        text='<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>'))
    done = run_ai("-m", "qwen", "--api-base", fake_provider.url, "read", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert len(fake_provider.requests) == 1 and "read_file" in done.stdout


def test_an_answer_looping_on_one_line_is_stopped(fake_provider: FakeProvider,
                                                  workspace: Path) -> None:
    fake_provider.queue(Reply(text="Here:\n" + "I will help you with that.\n" * 300,
                              chunk_size=9))
    done = run_ai("-m", "qwen", "--api-base", fake_provider.url, "help", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("I will help you with that.") < 20
    assert "repeated the same line" in done.stderr + done.stdout


def test_twin_a_short_repetitive_list_passes_whole(fake_provider: FakeProvider,
                                                   workspace: Path) -> None:
    answer = "Checks:\n" + "- ok\n" * 8 + "All fine."
    fake_provider.queue(Reply(text=answer, chunk_size=4))
    done = run_ai("-m", "qwen", "--api-base", fake_provider.url, "check", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("- ok") == 8 and "All fine." in done.stdout
    assert "repeated" not in done.stderr + done.stdout
