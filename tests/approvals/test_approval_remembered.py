"""Remembered "always" rules: per workspace, in the data directory."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from swebash_py.approvals import remembered
from swebash_py.approvals.approver import Answer, PolicyApprover
from swebash_py.approvals.decision import PendingCall
from swebash_py.approvals.policy import decide, suggest_rule
from swebash_py.approvals.rules import RuleSet
from swebash_py.config.settings import Settings
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.errors import StorageError
from swebash_py.tools.base import Preview
from swebash_py.tools.registry import ToolRegistry, builtin_traits, default_tools

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


def test_a_broken_file_is_named_and_never_overwritten(home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True)
    broken = '{\n  "/ws": [\n    "web_search",\n  ]\n}\n'  # a hand edit: trailing comma
    (home / "approvals.json").write_text(broken)
    assert remembered.load(tmp_path) == []  # its rules are not used: more is asked, not less
    problem = remembered.problem()
    assert problem is not None and "approvals.json line 4" in problem
    with pytest.raises(StorageError, match="line 4"):
        remembered.add(tmp_path, "web_search")
    with pytest.raises(StorageError, match="line 4"):
        remembered.remove(Path("/ws"), "web_search")
    assert (home / "approvals.json").read_text() == broken


def test_a_sound_file_is_backed_up_before_each_rewrite(home: Path, tmp_path: Path) -> None:
    remembered.add(tmp_path, "web_search")
    first = (home / "approvals.json").read_text()
    remembered.add(tmp_path, "run_command(ls)")
    assert (home / "approvals.json.bak").read_text() == first
    assert remembered.problem() is None


def test_a_failed_write_leaves_no_temp_file(home: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    remembered.add(tmp_path, "web_search")
    before = (home / "approvals.json").read_text()

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        remembered.add(tmp_path, "run_command(ls)")
    assert (home / "approvals.json").read_text() == before
    assert [p.name for p in home.iterdir() if p.name.endswith(".tmp")] == []


async def test_always_on_a_broken_file_allows_once(home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True)
    (home / "approvals.json").write_text("[1,]")

    async def always(*_args: object) -> Answer:
        return Answer("always")

    approver = PolicyApprover("ask", RuleSet.from_lists([], []), tmp_path, always)
    tool = ToolRegistry(default_tools(Settings())).get("web_search")
    assert tool is not None
    pending = PendingCall(ToolUseBlock("c1", "web_search", '{"query": "x"}'), tool,
                          tool.Args.parse({"query": "x"}), Preview("x"))
    verdict = await approver.ask(pending, approver.check(pending))
    assert verdict.action == "allow" and "not remembered" in verdict.reason
    assert (home / "approvals.json").read_text() == "[1,]"


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
