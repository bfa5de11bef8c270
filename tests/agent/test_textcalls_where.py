"""Calls written as text are made into calls only for a server the user points
at (``api_base``) or a local provider; the hosted APIs' text stays text."""

from __future__ import annotations

import pytest

from swebash_py.config.settings import load_settings
from swebash_py.front.build import local_server


@pytest.mark.parametrize("flags", [{"model": "openai/gpt-4o"},
                                   {"model": "anthropic/claude-sonnet-4-5"}])
def test_hosted_apis_keep_call_shaped_text_as_text(flags: dict[str, str]) -> None:
    assert not local_server(load_settings(flags))


@pytest.mark.parametrize("flags", [{"model": "openai/x", "api_base": "http://127.0.0.1:8000/v1"},
                                   {"model": "ollama_chat/qwen2.5"}])
def test_twin_local_servers_get_their_text_calls_run(flags: dict[str, str]) -> None:
    assert local_server(load_settings(flags))
