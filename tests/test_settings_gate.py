"""The one settings gate (``config.gate``) and where the managed policy comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.config import managed
from swebash_py.config.gate import SettingsGate
from swebash_py.config.managed import ManagedPolicy
from swebash_py.config.settings import Settings, load_settings


@pytest.fixture
def system_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system policy's path, moved in-process (the e2e tests use the real
    ``/etc/swebash/managed.toml`` in a private mount namespace)."""
    path = tmp_path / "etc-managed.toml"
    monkeypatch.setattr(managed, "DEFAULT_PATH", path)
    return path


def test_the_system_file_wins_over_the_variable(
        system_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system_file.write_text('approval = "strict"\n')
    monkeypatch.setenv(managed.ENV, "/dev/null")
    assert managed.managed_path() == system_file
    assert load_settings().approval == "strict"


def test_without_a_system_file_the_variable_counts(
        system_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('approval = "strict"\n')
    monkeypatch.setenv(managed.ENV, str(mine))
    assert managed.managed_path() == mine and load_settings().approval == "strict"


def test_a_dangling_system_link_fails_closed(
        system_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A system path that is a link to nothing is still the system's: no policy
    read from elsewhere (and none, rather than the user's variable)."""
    system_file.symlink_to(system_file.parent / "gone.toml")
    monkeypatch.setenv(managed.ENV, "/dev/null")
    assert managed.managed_path() == system_file


def gate(text: str, tmp_path: Path, said: list[str]) -> SettingsGate:
    import tomllib

    return SettingsGate(ManagedPolicy(tmp_path / "m.toml", tomllib.loads(text)), said.append)


def test_a_change_of_a_fixed_key_is_refused_in_one_line(tmp_path: Path) -> None:
    said: list[str] = []
    settings = Settings()
    refused = gate('[sandbox]\nmode = "workspace-write"\n', tmp_path, said).change(
        settings, "sandbox.mode", "off", "/sandbox off")
    assert refused == ("/sandbox off ignored: sandbox.mode is fixed to 'workspace-write' by "
                       f"the managed policy {tmp_path / 'm.toml'}")
    assert settings.sandbox.mode == "auto"


def test_a_change_of_a_free_key_is_set_and_checked(tmp_path: Path) -> None:
    """The twin: a key the policy leaves alone changes, checked like the file."""
    import msgspec

    settings = Settings()
    the_gate = gate('approval = "ask"\n', tmp_path, [])
    assert the_gate.change(settings, "sandbox.mode", "off") is None
    assert settings.sandbox.mode == "off"
    assert the_gate.change(settings, "approval", "ask") is None  # the fixed value itself
    with pytest.raises(msgspec.ValidationError):
        the_gate.change(settings, "sandbox.mode", "sideways")
    assert settings.sandbox.mode == "off"


def test_deny_rules_are_added_not_fixed(tmp_path: Path) -> None:
    the_gate = gate('[permissions]\ndeny = ["run_command(curl:*)"]\n', tmp_path, [])
    assert not the_gate.fixed_by("permissions.deny")
    merged = the_gate.merge({"permissions": {"deny": ["run_command(rm:*)"]}}, {})
    assert merged["permissions"]["deny"] == ["run_command(rm:*)", "run_command(curl:*)"]


def test_a_conflicting_environment_variable_is_named_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []
    monkeypatch.setenv("SWEBASH_APPROVAL", "yolo")
    merged = gate('approval = "ask"\n', tmp_path, said).merge({"approval": "yolo"}, {})
    assert merged["approval"] == "ask"
    assert said == [f"$SWEBASH_APPROVAL=yolo ignored: approval is fixed to 'ask' by the "
                    f"managed policy {tmp_path / 'm.toml'}"]


def test_an_agreeing_environment_variable_says_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []
    monkeypatch.setenv("SWEBASH_APPROVAL", "ask")
    gate('approval = "ask"\n', tmp_path, said).merge({"approval": "ask"}, {})
    assert said == []


# -- one door: the architecture ---------------------------------------------------

PACKAGE = Path(__file__).resolve().parent.parent / "swebash_py"


def sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8")
            for p in PACKAGE.rglob("*.py")}


def test_only_the_gate_changes_a_loaded_setting() -> None:
    """``Table.change`` (a loaded setting changed later) is called by the gate
    alone: a command that changed a setting itself would be a second door."""
    import re

    callers = {name for name, text in sources().items()
               if re.search(r"(?<!gate)\.change\(", text) and name != "config/table.py"}
    assert callers == {"config/gate.py"}


def test_only_the_gate_and_the_loader_read_the_managed_policy() -> None:
    """Who reads the policy: the gate (applies it), the loader (builds the gate),
    ``config show`` (names its source). No feature checks it on its own."""
    import re

    pattern = r"from swebash_py\.config(\.managed)? import (managed|ManagedPolicy)"
    readers = {name for name, text in sources().items() if re.search(pattern, text)}
    assert readers == {"config/gate.py", "config/settings.py", "cli/commands/config_cmd.py"}
