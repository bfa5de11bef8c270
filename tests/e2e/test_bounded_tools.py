"""Bounded means bounded, through the installed `ai`: a search that matches
every line of a gibibyte answers with its first matches at once (it used to
hang `ai` for good: rg blocked on a full pipe nobody read)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.agent.helpers import sent_results
from tests.bigfiles import gib_of_matches
from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[ToolCall("c1", name, json.dumps(arguments))])


def _search(fake_provider: FakeProvider, workspace: Path) -> tuple[str, float]:
    fake_provider.queue(call("search_files", pattern="return"), Reply(text="ok"))
    began = time.monotonic()
    result = run_ai(*model_args(fake_provider), "where do we return?", cwd=workspace,
                    timeout=60)
    took = time.monotonic() - began
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert not is_error
    return content, took


def test_a_search_matching_every_line_of_a_gib_answers_at_once(
        fake_provider: FakeProvider, workspace: Path) -> None:
    huge = gib_of_matches(workspace / "huge.py")
    try:
        content, took = _search(fake_provider, workspace)
    finally:
        huge.unlink()
    lines = content.splitlines()
    assert lines[0] == "huge.py:1: return value" and "stopped after 200 matches" in lines[-1]
    assert took < 15


def test_twin_a_normal_search_answers_with_its_matches(fake_provider: FakeProvider,
                                                       workspace: Path) -> None:
    (workspace / "b.py").write_text("def f():\n    return 1\n")
    (workspace / "a.py").write_text("return 0\n")
    content, _took = _search(fake_provider, workspace)
    assert content.splitlines() == ["a.py:1: return 0", "b.py:2: return 1"]
