"""Images reach the models that take them, on every wire format we speak, through the
installed ``ai``: the user's (``-i``) and a tool's (``read_file`` of an image) in one
turn. A model the table knows as text-only gets a note and not one byte (the twin);
a model it does not know is sent them, and a provider that refuses gets the request
once more with notes; ``supports_vision`` in the config decides for any model."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import ErrorReply, FakeProvider, RawReply, RecordedRequest, Reply, ToolCall

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==")
PNG_B64 = base64.b64encode(PNG).decode()
KEYS = {"ANTHROPIC_API_KEY": "sk-test-key-1234", "OPENAI_API_KEY": "sk-test-key-1234"}
READ = ToolCall("r1", "read_file", json.dumps({"path": "shot.png"}))


@dataclass(frozen=True)
class Wire:
    """One way a request leaves us: the model string, the backend, the path it hits."""

    model: str
    backend: str
    path: str

    @property
    def id(self) -> str:
        return f"{self.backend}:{self.model}"


def _ollama(*lines: dict[str, Any]) -> RawReply:
    """Ollama's native /api/chat stream (one JSON object a line)."""
    stamp = {"model": "m", "created_at": "2026-01-01T00:00:00Z"}
    return RawReply("".join(json.dumps({**stamp, **line}) + "\n" for line in lines),
                    content_type="application/x-ndjson", parts=1)


def _ollama_text(text: str) -> RawReply:
    return _ollama({"message": {"role": "assistant", "content": text}, "done": False},
                   {"message": {"role": "assistant", "content": ""}, "done": True,
                    "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 2})


def _ollama_read() -> RawReply:
    call = {"function": {"name": "read_file", "arguments": {"path": "shot.png"}}}
    return _ollama({"message": {"role": "assistant", "content": "", "tool_calls": [call]},
                    "done": False},
                   {"message": {"role": "assistant", "content": ""}, "done": True,
                    "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 2})


def _script(provider: FakeProvider, wire: Wire) -> None:
    """The model reads shot.png, then answers."""
    if wire.path == "/api/chat":  # litellm asks /api/show about a tool-calling model
        show = RawReply('{"model_info": {}}', content_type="application/json", parts=1)
        provider.queue(_ollama_read(), show, _ollama_text("A dot."))
    else:
        provider.queue(Reply(tool_calls=[READ]), Reply(text="A dot."))


def _run(provider: FakeProvider, wire: Wire, workspace: Path, isolated: Path,
         config: str = "") -> Any:
    (workspace / "shot.png").write_bytes(PNG)
    (isolated / "config.toml").write_text(f'backend = "{wire.backend}"\n{config}')
    _script(provider, wire)
    return run_ai("-y", "-m", wire.model, "--api-base", provider.url, "-i", "shot.png",
                  "what is in shot.png?", cwd=workspace, env=KEYS, timeout=120)


def _images_sent(request: RecordedRequest) -> list[tuple[str, str]]:
    """(where, base64) of every image a request body carries, whatever its wire:
    ``user`` for a user message's own, ``tool_result`` inside an Anthropic tool
    result, ``ollama`` for an Ollama message's ``images``."""
    found: list[tuple[str, str]] = []
    for message in request.body["messages"]:
        content = message.get("content")
        found += [("ollama", data) for data in message.get("images") or ()]
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "image_url":
                found.append(("user", part["image_url"]["url"].partition(";base64,")[2]))
            elif part.get("type") == "image":
                found.append(("user", part["source"]["data"]))
            elif part.get("type") == "tool_result" and isinstance(part["content"], list):
                found += [("tool_result", inner["source"]["data"])
                          for inner in part["content"] if inner.get("type") == "image"]
    return found


VISION = [Wire("openai/gpt-4o-mini", "direct", "/chat/completions"),
          Wire("anthropic/claude-sonnet-4-5", "direct", "/v1/messages"),
          Wire("openai/gpt-4o", "litellm", "/chat/completions"),
          Wire("anthropic/claude-sonnet-4-5", "litellm", "/v1/messages"),
          Wire("ollama_chat/llava:13b", "litellm", "/api/chat")]  # unknown: sent


@pytest.mark.parametrize("wire", VISION, ids=[w.id for w in VISION])
def test_a_vision_model_gets_the_users_and_the_tools_image(
        fake_provider: FakeProvider, workspace: Path, isolated: Path, wire: Wire) -> None:
    result = _run(fake_provider, wire, workspace, isolated)
    assert result.returncode == 0, result.stderr
    assert "does not take images" not in result.stderr
    first, second = [r for r in fake_provider.requests if r.path != "/api/show"]
    assert first.path == second.path == wire.path
    assert [data for _, data in _images_sent(first)] == [PNG_B64]  # the user's
    sent = _images_sent(second)
    assert [data for _, data in sent] == [PNG_B64, PNG_B64]  # and the tool's after it
    if wire.path == "/v1/messages" and wire.backend == "direct":
        assert [where for where, _ in sent] == ["user", "tool_result"]  # inside its result
    if wire.path != "/api/chat":  # Ollama's tool messages are sent as they are by litellm
        ((_, content, _),) = sent_results(second)
        assert content.startswith("[image shot.png: image/png")


TEXT_ONLY = [(Wire("openai/gpt-3.5-turbo", "direct", "/chat/completions"), ""),
             (Wire("anthropic/claude-sonnet-4-5", "direct", "/v1/messages"),
              "supports_vision = false\n"),
             (Wire("openai/gpt-3.5-turbo", "litellm", "/chat/completions"), ""),
             (Wire("anthropic/claude-sonnet-4-5", "litellm", "/v1/messages"),
              "supports_vision = false\n"),
             # its table window (8k) would compact the first request away
             (Wire("ollama_chat/llama3.1", "litellm", "/api/chat"), "context_window = 131072\n")]


@pytest.mark.parametrize(("wire", "config"), TEXT_ONLY, ids=[w.id for w, _ in TEXT_ONLY])
def test_twin_a_text_only_model_gets_a_note_and_no_bytes(
        fake_provider: FakeProvider, workspace: Path, isolated: Path, wire: Wire,
        config: str) -> None:
    result = _run(fake_provider, wire, workspace, isolated, config)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("does not take images") == 1  # told once, not per request
    for request in fake_provider.requests:
        body = json.dumps(request.body)
        if request.path == "/api/show":
            continue
        assert PNG_B64 not in body and "image_url" not in body
        assert "image(s) not shown: this model does not take images" in body
    if wire.path != "/api/chat":
        ((_, content, _),) = sent_results(fake_provider.requests[1])
        assert content.endswith("[1 image(s) not shown: this model does not take images]")


def test_supports_vision_true_sends_images_to_any_model(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    wire = Wire("openai/gpt-3.5-turbo", "direct", "/chat/completions")
    result = _run(fake_provider, wire, workspace, isolated, "supports_vision = true\n")
    assert result.returncode == 0, result.stderr
    assert [data for _, data in _images_sent(fake_provider.requests[1])] == [PNG_B64] * 2


REFUSAL = "Invalid content type. image_url is only supported by certain models."


def test_an_unknown_model_that_refuses_images_is_asked_again_with_notes(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    fake_provider.queue(ErrorReply(400, message=REFUSAL), Reply(tool_calls=[READ]),
                        Reply(text="I cannot see images."))
    result = run_ai("-y", "-m", "openai/some-local-model", "--api-base", fake_provider.url,
                    "-i", "shot.png", "what is it?", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "I cannot see images." in result.stdout
    assert result.stderr.count("refused the image(s)") == 1
    tried, again, after_tool = fake_provider.requests
    assert PNG_B64 in json.dumps(tried.body)  # unknown: sent first
    for request in (again, after_tool):  # then notes, the tool's image too
        body = json.dumps(request.body)
        assert PNG_B64 not in body and "the provider refused images" in body


def test_twin_a_second_refusal_is_one_clear_line_and_no_loop(
        fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    fake_provider.queue(ErrorReply(400, message=REFUSAL), ErrorReply(400, message=REFUSAL))
    result = run_ai("-m", "openai/some-local-model", "--api-base", fake_provider.url,
                    "-i", "shot.png", "what is it?", cwd=workspace)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[-1].startswith("ai: ") and "did not take the image" in lines[-1]
    assert len(fake_provider.requests) == 2


def test_twin_a_refusal_without_images_is_not_retried(fake_provider: FakeProvider,
                                                      workspace: Path) -> None:
    fake_provider.queue(ErrorReply(400, message=REFUSAL), Reply(text="never"))
    result = run_ai("-m", "openai/some-local-model", "--api-base", fake_provider.url,
                    "--no-tools", "hi", cwd=workspace)
    assert result.returncode == 1 and "did not take the image" in result.stderr
    assert len(fake_provider.requests) == 1


def test_at_image_in_the_repl_then_model_switches_decide_per_request(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    """``@shot.png`` reaches a vision model; after ``/model`` to a text-only one the
    same history goes as a note (the twin), and back on a vision model the history
    still has the image: it is decided per request, never lost."""
    (workspace / "shot.png").write_bytes(PNG)
    fake_provider.queue(Reply(text="A red dot."), Reply(text="Cannot see."),
                        Reply(text="Still a dot."))
    child = spawn_ai("-m", "openai/gpt-4o-mini", "--api-base", fake_provider.url, "--yes",
                     env=KEYS)
    child.expect("swebash>")
    child.sendline("what is @shot.png")
    child.expect("attached shot.png")
    child.expect("A red dot.")
    for model, answer in (("openai/gpt-3.5-turbo", "Cannot see."),
                          ("openai/gpt-4o-mini", "Still a dot.")):
        child.expect("swebash>")
        child.sendline(f"/model {model}")
        child.expect("swebash>")
        child.sendline("and now?")
        child.expect(answer)
    child.expect("swebash>")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    first, text_only, vision = fake_provider.requests
    assert [data for _, data in _images_sent(first)] == [PNG_B64]
    assert PNG_B64 not in json.dumps(text_only.body)
    assert "this model does not take images" in json.dumps(text_only.body)
    assert [data for _, data in _images_sent(vision)] == [PNG_B64]


def test_a_local_server_without_vision_answering_500_is_asked_again_not_retried(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """llama.cpp without a projector answers 500 "image input is not supported": not
    an outage to retry with backoff, but a refusal (one request more, with a note)."""
    (workspace / "shot.png").write_bytes(PNG)
    fake_provider.queue(ErrorReply(500, message="image input is not supported - hint: if "
                                   "this is unexpected, you may need to provide the mmproj"),
                        Reply(text="No image here."))
    result = run_ai("-m", "openai/local", "--api-base", fake_provider.url, "-i", "shot.png",
                    "what is it?", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "No image here." in result.stdout and "retry" not in result.stderr.lower()
    assert len(fake_provider.requests) == 2
    assert PNG_B64 not in json.dumps(fake_provider.requests[1].body)


def test_twin_a_plain_500_is_still_an_outage(fake_provider: FakeProvider,
                                             workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text("max_retries = 1\n")
    (workspace / "shot.png").write_bytes(PNG)
    fake_provider.queue(ErrorReply(500, message="upstream overloaded"),
                        ErrorReply(500, message="upstream overloaded"))
    result = run_ai("-m", "openai/local", "--api-base", fake_provider.url, "-i", "shot.png",
                    "what is it?", cwd=workspace)
    assert result.returncode == 1 and "provider error" in result.stderr
    assert len(fake_provider.requests) == 2  # retried as an outage
    assert all(PNG_B64 in json.dumps(r.body) for r in fake_provider.requests)  # no notes
