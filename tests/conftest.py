"""Test isolation: every test gets its own data dir, config file and a clean
environment (no real keys, no proxies, no colour settings), and nothing
reaches the network."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeprovider import fake_provider  # noqa: F401  (fixture)
from tests.tools.webpages import site  # noqa: F401  (fixture)

_CLEARED = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
            "OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_BASE_URL", "SWEBASH_MODEL",
            "SWEBASH_API_BASE", "SWEBASH_APPROVAL", "NO_COLOR", "FORCE_COLOR", "COLUMNS",
            "LINES", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
            "all_proxy", "BRAVE_API_KEY", "SWEBASH_STORE_URL",
            "SWEBASH_TERM_ID")  # a developer's own terminal history is not a test's


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory: pytest.TempPathFactory,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("swebash-home")
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SWEBASH_HOME", str(home / "data"))
    monkeypatch.setenv("SWEBASH_CONFIG", str(home / "config.toml"))
    # <user config dir>/swebash (custom commands, the user's AGENTS.md): not the real one
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("SWEBASH_MANAGED_CONFIG", str(home / "managed.toml"))  # not /etc's
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield home


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary working directory the tools treat as the workspace."""
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    return Path(os.path.realpath(ws))
