"""Managed policy: fixed keys win over flags, environment and the user's file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from swebash_py.config.settings import load_settings
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.team.helpers import HostDir


@pytest.fixture
def managed(isolated: Path) -> Path:
    return Path(os.environ["SWEBASH_MANAGED_CONFIG"])


def test_a_user_config_cannot_weaken_the_managed_policy(
        managed: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    managed.write_text('approval = "ask"\n[permissions]\ndeny = ["run_command(curl:*)"]\n'
                       '[store]\nupload_output = false\n[sandbox]\nmode = "read-only"\n')
    (isolated / "config.toml").write_text(
        'approval = "yolo"\n[permissions]\nallow = ["run_command(curl:*)"]\n'
        'deny = ["run_command(rm:*)"]\n[store]\nupload_output = true\n')
    monkeypatch.setenv("SWEBASH_APPROVAL", "yolo")
    settings = load_settings({"approval": "yolo", "model": "openai/x", "sandbox_mode": "off"})
    assert settings.approval == "ask" and settings.store.upload_output is False
    assert settings.sandbox.mode == "read-only"
    assert settings.permissions.deny == ["run_command(rm:*)", "run_command(curl:*)"]
    assert settings.permissions.allow == ["run_command(curl:*)"]  # not managed: kept
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--approval yolo ignored" in err[0] and str(managed) in err[0]
    assert "--sandbox off ignored: sandbox.mode is fixed" in err[1]


def test_without_a_managed_file_the_user_decides(managed: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text('approval = "yolo"\n')
    assert not managed.exists()
    assert load_settings().approval == "yolo"  # the twin: the check above can fail


def test_managed_deny_rule_stops_a_yes_run(
        managed: Path, fake_provider: FakeProvider, tmp_path: Path, workspace: Path) -> None:
    host = HostDir(tmp_path, "a", None)
    managed.write_text('[permissions]\ndeny = ["run_command(touch:*)"]\n')
    host.config.write_text('[permissions]\nallow = ["run_command(touch:*)"]\ndeny = []\n')
    fake_provider.queue(
        Reply(tool_calls=[ToolCall("c1", "run_command", json.dumps({"command": "touch x"}))]),
        Reply(text="ok"))
    done = host.ask(fake_provider, "make x", "-y", cwd=workspace,
                    SWEBASH_MANAGED_CONFIG=str(managed))
    assert done.returncode == 0, done.stderr
    assert not (workspace / "x").exists()
    rows = [json.loads(x) for x in host.ai("audit", "--json").stdout.splitlines()]
    assert [(r["decision"], r["allowed"]) for r in rows] == [("rule", False)]


def test_a_broken_managed_file_is_a_config_error_naming_it(
        managed: Path, tmp_path: Path) -> None:
    managed.write_text("approval = \n")
    host = HostDir(tmp_path, "a", None)
    done = host.ai("config", "show", SWEBASH_MANAGED_CONFIG=str(managed))
    assert done.returncode == 1 and str(managed) in done.stderr


def _denial_sent(fake_provider: FakeProvider, workspace: Path, *flags: str) -> str:
    from tests.agent.helpers import sent_results
    from tests.e2e.conftest import run_ai

    fake_provider.queue(
        Reply(tool_calls=[ToolCall("c1", "run_command", json.dumps({"command": "touch x"}))]),
        Reply(text="ok"))
    done = run_ai(*flags, "-m", "openai/x", "--api-base", fake_provider.url, "make x",
                  cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert not (workspace / "x").exists()
    ((_id, sent, _error),) = sent_results(fake_provider.requests[1])
    return str(sent)


def test_managed_strict_denial_does_not_suggest_yes(
        managed: Path, fake_provider: FakeProvider, workspace: Path) -> None:
    managed.write_text('approval = "strict"\n')
    sent = _denial_sent(fake_provider, workspace, "-y")
    assert "no terminal" in sent and "rerun with --yes" not in sent
    assert "managed policy" in sent and "--yes does not" in sent


def test_plain_strict_denial_suggests_yes(
        managed: Path, fake_provider: FakeProvider, workspace: Path) -> None:
    assert not managed.exists()  # twin: without a managed policy --yes would answer it
    sent = _denial_sent(fake_provider, workspace, "--approval", "strict")
    assert "rerun with --yes" in sent and "allow rule" not in sent
