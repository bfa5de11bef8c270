"""Imports our dependencies make but we never use stay off the one-shot path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

CODE = ("import sys\nfrom swebash_py.cli.main import main\n"
        "try:\n    main(['-m', 'openai/x', '--api-base', sys.argv[1], 'hi'])\n"
        "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        "print(sorted(m for m in ('importlib.metadata', 'httpx._main', 'click', 'pygments',"
        " 'pydantic', 'httpx') if sys.modules.get(m) is not None), file=sys.stderr)\n")


def loaded(fake_provider: Any, env: dict[str, str], workspace: Path,
           tool_call: bool = False) -> str:
    """What a one-shot imported; with ``tool_call``, the model reads a file first
    (validating its arguments is what imports pydantic)."""
    from tests.fakeprovider import Reply, ToolCall

    if tool_call:
        (workspace / "notes.txt").write_text("hello\n")
        fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "read_file",
                                                       '{"path": "notes.txt"}')]))
    fake_provider.queue(Reply(text="fine"))
    result = subprocess.run([sys.executable, "-c", CODE, fake_provider.url], capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, check=True, cwd=workspace,
                            env={k: v for k, v in {**os.environ, **env}.items() if v is not None})
    assert result.stdout.endswith("fine\n")
    return result.stderr.strip().splitlines()[-1]


def without_plugin_setting() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}


def test_a_text_only_one_shot_skips_httpx_cli_and_pydantic(fake_provider: Any,
                                                            tmp_path: Path) -> None:
    assert loaded(fake_provider, without_plugin_setting(), tmp_path) == "[]"


def test_a_tool_call_loads_pydantic_without_its_plugin_scan(fake_provider: Any,
                                                            tmp_path: Path) -> None:
    assert loaded(fake_provider, without_plugin_setting(), tmp_path, tool_call=True) == (
        "['pydantic']")


def test_the_twin_plugins_left_on_load_importlib_metadata(fake_provider: Any,
                                                          tmp_path: Path) -> None:
    """With pydantic's plugins not disabled, the loader (and importlib.metadata) is real,
    which the check above would see."""
    assert loaded(fake_provider, {"PYDANTIC_DISABLE_PLUGINS": "some_plugin"}, tmp_path,
                  tool_call=True) == "['importlib.metadata', 'pydantic']"


def test_pydantic_still_validates_with_the_plugin_loader_skipped() -> None:
    code = ("import os, sys\nos.environ['PYDANTIC_DISABLE_PLUGINS'] = '__all__'\n"
            "from swebash_py.lean_imports import skip_unused_imports\nskip_unused_imports()\n"
            "from pydantic import BaseModel, Field\n"
            "class Args(BaseModel):\n    count: int = Field(1, ge=1)\n"
            "assert Args.model_validate({'count': 3}).count == 3\n"
            "try:\n    Args.model_validate({'count': 0})\n"
            "except Exception as exc:\n    print(type(exc).__name__)\n"
            "print('importlib.metadata' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["ValidationError", "False"]


SETTINGS = """model = "openai/x"
max_iterations = 3
[tools]
command_timeout = 30
[sandbox]
writable_roots = ["/tmp"]
[mcp_servers.docs]
url = "http://127.0.0.1:9/mcp"
"""


def settings_import_pydantic(tmp_path: Path, first: str = "") -> str:
    """Whether loading the settings (a file with tables, paths and an MCP server)
    imported pydantic. (Permission rules are checked against the tools' traits,
    whose module is the tools' own business.)"""
    config = tmp_path / "config.toml"
    config.write_text(SETTINGS)
    code = (f"import sys\n{first}\nfrom swebash_py.config import load_settings\n"
            "settings = load_settings({'model': 'openai/x', 'api_base': 'http://127.0.0.1:9'})\n"
            "assert settings.max_iterations == 3 and settings.mcp_servers['docs'].url\n"
            "print('pydantic' in sys.modules)\n")
    env = {**os.environ, "SWEBASH_CONFIG": str(config),
           "SWEBASH_MANAGED_CONFIG": str(tmp_path / "managed.toml")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout.strip()


def test_loading_the_settings_imports_no_pydantic(tmp_path: Path) -> None:
    assert settings_import_pydantic(tmp_path) == "False"


def test_the_twin_a_settings_layer_on_pydantic_would_be_seen(tmp_path: Path) -> None:
    """Were anything on the way to the settings to import pydantic (as the settings
    once did), the check above would say so."""
    assert settings_import_pydantic(tmp_path, "from pydantic import BaseModel") == "True"
