"""`ai --json`: every event of a tool turn, in both wire formats, validates
against the schema in the repository (swebash_py/data/events.schema.json)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, get_args

import jsonschema
import pytest

import swebash_py
from swebash_py import events
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall

SCHEMA_PATH = Path(swebash_py.__file__).parent / "data" / "events.schema.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_schema_names_every_turn_event_and_field() -> None:
    """Drift check: a field added to an event without the schema fails here."""
    defs = json.loads(SCHEMA_PATH.read_text())["$defs"]
    classes = get_args(events.TurnEvent)
    assert sorted(c.type for c in classes) == sorted(defs)
    for cls in classes:
        assert sorted([*cls.__struct_fields__, "type"]) == sorted(
            defs[cls.type]["properties"]), cls.type
    assert defs["turn_start"]["properties"]["version"]["const"] == events.EVENTS_VERSION


def test_the_schema_rejects_what_it_should(validator: jsonschema.Draft202012Validator) -> None:
    """The twin: the validator is not a pass-everything."""
    good = {"type": "turn_start", "model": "m", "session_id": "ab12cd34", "version": 1}
    assert validator.is_valid(good)
    assert not validator.is_valid({k: v for k, v in good.items() if k != "version"})
    assert not validator.is_valid({**good, "extra": 1})
    assert not validator.is_valid({"type": "turn_complete", "stop_reason": "whatever",
                                   "text": "", "usage": {}})


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_every_event_of_a_tool_turn_validates(fake_provider: FakeProvider, workspace: Path,
                                              isolated: Path, wire: str,
                                              validator: jsonschema.Draft202012Validator
                                              ) -> None:
    (workspace / "notes.txt").write_text("alpha\n")
    fake_provider.queue(
        Reply(thinking="Read it first." if wire == "anthropic" else "", text="Let me look.",
              tool_calls=[ToolCall("call_1", "read_file", '{"path": "notes.txt"}')]),
        Reply(text="The project has one note: alpha."))
    model = "openai/x" if wire == "openai" else "anthropic/claude-x"
    result = run_ai("--json", "-m", model, "--api-base", fake_provider.url, "what is here?",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    lines: list[dict[str, Any]] = [json.loads(line) for line in result.stdout.splitlines()]
    for event in lines:
        errors = [e.message for e in validator.iter_errors(event)]
        assert not errors, (event, errors)
    kinds = {e["type"] for e in lines}
    assert {"turn_start", "block_start", "block_delta", "block_stop", "usage",
            "turn_complete"} <= kinds
    assert any(e["type"] == "block_stop" and e["kind"] == "tool_result" for e in lines)
    start, complete = lines[0], lines[-1]
    assert start["type"] == "turn_start" and start["version"] == events.EVENTS_VERSION
    with sqlite3.connect(isolated / "data" / "sessions.db") as db:
        stored = [row[0] for row in db.execute("SELECT id FROM sessions")]
    assert stored == [start["session_id"]]  # a new session's id, already in turn_start
    assert complete["text"] == "Let me look.\n\nThe project has one note: alpha."


def test_a_refusal_in_json(fake_provider: FakeProvider,
                           validator: jsonschema.Draft202012Validator) -> None:
    from tests.fakeprovider import RawReply

    body = (Path(__file__).parent.parent / "streams" / "openai_refusal.sse").read_text()
    fake_provider.queue(RawReply(body))
    result = run_ai("--json", "-m", "openai/gpt-4o", "--api-base", fake_provider.url, "hi")
    assert result.returncode == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(validator.is_valid(e) for e in lines), lines
    errors = [e for e in lines if e["type"] == "error"]
    assert [(e["error"], e["message"]) for e in errors] == [
        ("refusal", "the model declined to answer")]
    assert lines[-1]["stop_reason"] == "refusal"
    assert lines[-1]["text"] == "I'm sorry, I can't help with that."
