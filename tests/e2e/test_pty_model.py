"""Through the installed ``ai``: ``/model `` + Tab completes from the model table,
``/model nosuch/thing`` is refused with one line (the model stays), and ``-m`` of
such a model says so at once (no litellm import); twins: usable names pass."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import exit_repl, model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply


@pytest.mark.pty
def test_model_tab_completes_a_model_and_nosuch_is_refused(
        spawn_ai: Any, fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / "anthropic-notes.txt").write_text("x")
    child = start_repl(spawn_ai, fake_provider)
    child.send("/model anthropic/claude-sonnet-4-5-2025\t")
    child.expect("0929")  # completed from the table (only the new characters are drawn)
    child.send("\r")
    child.expect(r"model: anthropic/claude-sonnet-4-5-20250929")
    child.expect("swebash>")
    child.sendline("/model nosuch/thing")
    child.expect("not changed: unknown model 'nosuch/thing': no provider is called 'nosuch'")
    child.expect("swebash>")
    child.sendline("/model")
    child.expect(r"model: anthropic/claude-sonnet-4-5-20250929")  # kept
    child.expect("swebash>")
    exit_repl(child)


def test_dash_m_of_an_unknown_provider_says_so_at_once(fake_provider: FakeProvider,
                                                       workspace: Path) -> None:
    started = time.monotonic()
    result = run_ai("-m", "nosuch/thing", "--api-base", fake_provider.url, "hi", cwd=workspace)
    took = time.monotonic() - started
    assert result.returncode == 1  # as when litellm refused it, ~10 s later
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown model 'nosuch/thing'" in lines[0]
    assert "no provider is called 'nosuch'" in lines[0]  # the one wording (litellm_errors too)
    assert took < 3, f"took {took:.1f} s"
    assert not fake_provider.requests


def test_the_twin_an_openai_compatible_name_not_in_the_table_runs(
        fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(Reply(text="Hello from a local model."))
    result = run_ai(*model_args(fake_provider), "hi", cwd=workspace)  # openai/x: not listed
    assert result.returncode == 0, result.stderr
    assert "Hello from a local model." in result.stdout
