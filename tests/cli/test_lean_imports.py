"""Imports our dependencies make but we never use stay off the one-shot path."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

CODE = ("import sys\nfrom swebash_py.cli.main import main\n"
        "try:\n    main(['-m', 'openai/x', '--api-base', sys.argv[1], 'hi'])\n"
        "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        "print(sorted(m for m in ('importlib.metadata', 'httpx._main', 'click', 'pygments',"
        " 'pydantic', 'httpx') if sys.modules.get(m) is not None), file=sys.stderr)\n")


def loaded(fake_provider: Any, env: dict[str, str]) -> str:
    from tests.fakeprovider import Reply

    fake_provider.queue(Reply(text="fine"))
    result = subprocess.run([sys.executable, "-c", CODE, fake_provider.url], capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, check=True,
                            env={k: v for k, v in {**os.environ, **env}.items() if v is not None})
    assert result.stdout == "fine\n"
    return result.stderr.strip().splitlines()[-1]


def test_a_one_shot_skips_httpx_cli_and_pydantic_plugin_scan(fake_provider: Any) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    assert loaded(fake_provider, env) == "['pydantic']"


def test_the_twin_plugins_left_on_load_importlib_metadata(fake_provider: Any) -> None:
    """With pydantic's plugins not disabled, the loader (and importlib.metadata) is real,
    which the check above would see."""
    assert loaded(fake_provider, {"PYDANTIC_DISABLE_PLUGINS": "some_plugin"}) == (
        "['importlib.metadata', 'pydantic']")


def test_pydantic_still_validates_with_the_plugin_loader_skipped() -> None:
    code = ("import os, sys\nos.environ['PYDANTIC_DISABLE_PLUGINS'] = '__all__'\n"
            "from swebash_py.lean_imports import skip_unused_imports\nskip_unused_imports()\n"
            "from swebash_py.config import Settings\n"
            "assert Settings.model_validate({'max_iterations': 3}).max_iterations == 3\n"
            "try:\n    Settings.model_validate({'max_iterations': 0})\n"
            "except Exception as exc:\n    print(type(exc).__name__)\n"
            "print('importlib.metadata' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["ValidationError", "False"]
