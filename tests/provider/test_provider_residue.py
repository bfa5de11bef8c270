"""Provider endings through the installed `ai`, each from its recorded stream
(tests/streams): what the user reads and the exit code. A refused or filtered
answer keeps its words on stdout, says why in one line on stderr, and exits 1
(CONTRACT: 1 is a provider error; the answer is not what was asked for); a
provider's mid-stream error message is shown in its own words."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, RawReply

STREAMS = Path(__file__).parent.parent / "streams"
KEYS = {name: "test-key" for name in ("OPENAI_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY",
                                      "GEMINI_API_KEY", "ANTHROPIC_API_KEY")}


def ask(fp: FakeProvider, backend: str, model: str, body: str, *flags: str,
        cwd: Path) -> tuple[int, str, list[str]]:
    """`ai` on ``backend`` answering from ``body``: exit code, stdout, stderr lines."""
    Path(os.environ["SWEBASH_CONFIG"]).write_text(f'backend = "{backend}"\n')
    fp.queue(RawReply(body))
    result = run_ai("-m", model, "--api-base", fp.url, "--no-tools", *flags, "hi", cwd=cwd,
                    env=KEYS)
    return result.returncode, result.stdout, result.stderr.splitlines()


def recorded(name: str) -> str:
    return (STREAMS / f"{name}.sse").read_text()


ENDINGS = [  # (recording, litellm model, stdout, the one line's words)
    ("gemini_compat_content_filter", "openai/gemini-2.5-flash", "Mixing those two",
     "the provider's content filter stopped the answer"),
    ("gemini_compat_malformed", "openai/gemini-2.5-flash", "",
     "could not parse (MALFORMED_FUNCTION_CALL)"),
    ("openai_refusal", "openai/gpt-4o", "I'm sorry, I can't help with that.",
     "the model declined to answer"),
]


@pytest.mark.parametrize("backend", ["litellm", "direct"])
@pytest.mark.parametrize(("name", "model", "stdout", "words"), ENDINGS,
                         ids=[e[0] for e in ENDINGS])
def test_an_ending_is_one_clear_line(fake_provider: FakeProvider, workspace: Path,
                                     backend: str, name: str, model: str, stdout: str,
                                     words: str) -> None:
    code, out, err = ask(fake_provider, backend, model, recorded(name), cwd=workspace)
    assert (code, out.strip()) == (1, stdout), err
    assert len(err) == 1 and err[0].startswith("ai: ") and words in err[0], err


def test_twin_the_same_stream_ending_normally_exits_0(fake_provider: FakeProvider,
                                                      workspace: Path) -> None:
    body = recorded("gemini_compat_content_filter").replace('"content_filter"', '"stop"')
    code, out, err = ask(fake_provider, "litellm", "openai/gemini-2.5-flash", body,
                         cwd=workspace)
    assert (code, out.strip(), err) == (0, "Mixing those two", [])


@pytest.mark.parametrize(("backend", "model"), [
    ("litellm", "groq/llama-3.3-70b-versatile"), ("direct", "openai/llama-3.3-70b-versatile")])
def test_a_groq_error_event_shows_its_message(fake_provider: FakeProvider, workspace: Path,
                                              backend: str, model: str) -> None:
    code, out, err = ask(fake_provider, backend, model, recorded("groq_error_midstream"),
                         cwd=workspace)
    assert (code, out.strip()) == (1, "The port")
    assert len(err) == 1 and "Service Unavailable" in err[0], err
    assert "could not read" not in err[0]


@pytest.mark.parametrize(("backend", "model"), [
    ("litellm", "mistral/magistral-medium-latest"), ("direct", "openai/magistral-medium-latest")])
def test_mistral_thinking_is_shown_as_thinking(fake_provider: FakeProvider, workspace: Path,
                                               backend: str, model: str) -> None:
    code, out, err = ask(fake_provider, backend, model, recorded("mistral_magistral"),
                         "--json", cwd=workspace)
    assert code == 0, err
    stops = [e for e in map(json.loads, out.splitlines()) if e["type"] == "block_stop"]
    assert [(e["kind"], e["content"]) for e in stops] == [
        ("thinking", "Dividing 10 by 2 is 5."), ("text", "It is 5.")]
