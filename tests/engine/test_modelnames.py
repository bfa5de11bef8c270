"""Model names without litellm: Tab's candidates, and which names are refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

from swebash_py.provider.modelnames import complete, known_providers, model_problem


def test_completion_names_are_litellm_strings() -> None:
    found = complete("anthropic/claude-")
    assert found and all(name.startswith("anthropic/claude-") for name in found)
    assert complete("zzz-no-such") == []


@pytest.mark.parametrize("model", ["nosuch/thing", "foo-bar/gpt-x"])
def test_an_unknown_provider_prefix_is_refused(model: str) -> None:
    problem = model_problem(model)
    assert problem is not None and problem[0] == "refuse"
    assert "openai/NAME with --api-base" in problem[1]


@pytest.mark.parametrize(("model", "api_base", "backend"), [
    ("openai/my-local-model", "http://127.0.0.1:8000/v1", "auto"),  # OpenAI-compatible
    ("ollama_chat/llama3.1:8b", None, "auto"),
    ("hosted_vllm/qwen", "http://127.0.0.1:8000", "auto"),
    ("mymodel", "http://127.0.0.1:8000", "auto"),  # no prefix, an api_base: openai wire
    ("nosuch/thing", "http://127.0.0.1:8000", "direct"),  # the direct client takes any name
])
def test_the_twin_names_a_user_can_use_are_never_refused(model: str, api_base: str | None,
                                                         backend: str) -> None:
    problem = model_problem(model, api_base, backend)
    assert problem is None or problem[0] == "warn"


def test_known_models_have_no_problem_and_providers_come_from_litellm() -> None:
    assert model_problem("anthropic/claude-sonnet-4-5") is None
    assert model_problem("gpt-4o") is None
    assert {"openai", "anthropic", "gemini", "ollama_chat", "bedrock"} <= known_providers()


def test_no_litellm_import() -> None:
    code = ("import sys; from swebash_py.provider.modelnames import model_problem, complete; "
            "model_problem('nosuch/thing'); complete('openai/'); "
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
