"""A tool call's arguments, through the installed `ai` (msgspec, #28): arguments
that do not fit reach the model as one line naming each misfit argument (it can
correct itself), and nothing runs; the twin: the same call with fitting arguments
(a number sent as a string, as small models do, is taken) runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agent.helpers import sent_results
from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def _result_of(fake_provider: FakeProvider, workspace: Path, **arguments: Any) -> tuple[str, bool]:
    (workspace / "notes.txt").write_text("one\ntwo\nthree\n")
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "read_file", json.dumps(arguments))]),
                        Reply(text="ok"))
    result = run_ai(*model_args(fake_provider), "read the notes", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    return content, is_error


def test_misfit_arguments_reach_the_model_one_line_each(fake_provider: FakeProvider,
                                                       workspace: Path) -> None:
    content, is_error = _result_of(fake_provider, workspace, path="notes.txt", limit="many",
                                   offset=0, colour="red")
    assert is_error
    assert content == ("Error: invalid arguments for read_file: limit: expected integer, got "
                       "string; offset: expected integer >= 1; colour: unknown argument")


def test_a_missing_argument_is_named(fake_provider: FakeProvider, workspace: Path) -> None:
    content, is_error = _result_of(fake_provider, workspace, limit=2)
    assert is_error
    assert content == "Error: invalid arguments for read_file: path: missing (required)"


def test_twin_fitting_arguments_run(fake_provider: FakeProvider, workspace: Path) -> None:
    content, is_error = _result_of(fake_provider, workspace, path="notes.txt", limit="2")
    assert not is_error
    assert content.splitlines()[:2] == ["     1\tone", "     2\ttwo"]
    assert "three" not in content.splitlines()[1]
