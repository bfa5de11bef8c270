"""Remembered "always" rules: per workspace, in the data directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swebash_py.approvals import remembered
from swebash_py.approvals.policy import decide, suggest_rule
from swebash_py.approvals.rules import RuleSet
from swebash_py.tools.base import Preview
from swebash_py.tools.registry import builtin_traits

TRAITS = builtin_traits()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def test_add_load_remove(home: Path, tmp_path: Path) -> None:
    ws, other = tmp_path / "ws", tmp_path / "other"
    ws.mkdir()
    other.mkdir()
    assert remembered.load(ws) == []
    remembered.add(ws, "run_command(npm test)")
    remembered.add(ws, "run_command(npm test)")
    remembered.add(ws / "sub" / "..", "web_search")
    assert remembered.load(ws) == ["run_command(npm test)", "web_search"]
    assert remembered.load(other) == []
    stored = json.loads((home / "approvals.json").read_text())
    assert stored == {str(ws.resolve()): ["run_command(npm test)", "web_search"]}
    assert remembered.all() == stored
    assert not list(ws.iterdir())  # nothing inside the project tree
    assert remembered.remove(ws, "web_search") is True
    assert remembered.remove(ws, "web_search") is False
    assert remembered.load(ws) == ["run_command(npm test)"]
    assert [p.name for p in home.iterdir() if p.name.startswith(".approvals-")] == []


def test_invalid_rules_are_refused_and_skipped(home: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown tool"):
        remembered.add(tmp_path, "rm_everything")
    home.mkdir(parents=True, exist_ok=True)
    (home / "approvals.json").write_text(json.dumps({str(tmp_path.resolve()):
                                                     ["bogus(", "web_search"]}))
    assert remembered.load(tmp_path) == ["web_search"]


def test_corrupt_file_counts_as_empty(home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True)
    (home / "approvals.json").write_text("{not json")
    assert remembered.load(tmp_path) == []
    remembered.add(tmp_path, "web_search")
    assert remembered.load(tmp_path) == ["web_search"]


def test_always_persists_and_applies_next_run(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    command = "npm test && git status"
    preview = Preview(command)
    config = RuleSet.from_lists([], [])
    assert decide(TRAITS["run_command"], {"command": command}, preview, "ask", config,
                  ws).action == "ask"
    suggestion = suggest_rule(TRAITS["run_command"], {"command": command}, preview, ws)
    assert suggestion
    for rule in suggestion:
        remembered.add(ws, rule)
    # "next run": a fresh rule set built from the config plus what is stored
    rules = RuleSet.from_lists([], []).with_allow(remembered.load(ws))
    assert decide(TRAITS["run_command"], {"command": command}, preview, "ask", rules,
                  ws).action == "allow"
    assert decide(TRAITS["run_command"], {"command": "npm test; rm x"}, preview, "ask", rules,
                  ws).action == "ask"
    other = RuleSet.from_lists([], []).with_allow(remembered.load(tmp_path))
    assert decide(TRAITS["run_command"], {"command": command}, preview, "ask", other,
                  tmp_path).action == "ask"
