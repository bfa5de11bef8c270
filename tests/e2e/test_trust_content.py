"""Trust binds to the settings' content (issue #27): a trusted folder whose
``.swebash/`` changed, or got settings where it had none, is not used without
asking again; through the installed ``ai`` (no terminal, and in a pty), with
twins where the trusted settings are unchanged and do run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swebash_py.project import fingerprint, trust
from swebash_py.project.loading import resolve_project
from tests.e2e.conftest import finish, model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def settings(folder: Path, text: str) -> None:
    (folder / ".swebash").mkdir(exist_ok=True)
    (folder / ".swebash" / "config.toml").write_text(text)


def hook(marker: Path) -> str:
    return f'[hooks]\npre_tool = ["touch {marker}"]\n'


def one_tool_call(fake_provider: FakeProvider, workspace: Path, *flags: str) -> Any:
    (workspace / "a.txt").write_text("a\n")
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "read_file", json.dumps(
        {"path": "a.txt"}))]), Reply(text="ok"))
    result = run_ai(*flags, "-m", "openai/x", "--api-base", fake_provider.url, "read a",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    return result


def test_a_hook_added_after_trust_does_not_run_without_a_question(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    settings(workspace, '[permissions]\nallow = ["run_command(make)"]\n')
    trust.remember(workspace, "trusted")
    settings(workspace, '[permissions]\nallow = ["run_command(make)"]\n' + hook(marker))
    result = one_tool_call(fake_provider, workspace)
    assert not marker.exists()
    (note,) = [line for line in result.stderr.splitlines() if ".swebash/ is not used" in line]
    assert "changed since you trusted it" in note and f"+ pre_tool hook: touch {marker}" in note
    assert trust.answer_for(workspace) == "trusted"  # asked again on a terminal, not forgotten


def test_a_trusted_unchanged_hook_runs(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    """The twin: the same hook, trusted as it is: it runs, nothing is said."""
    marker = tmp_path / "hook-ran"
    settings(workspace, '[permissions]\nallow = ["run_command(make)"]\n' + hook(marker))
    trust.remember(workspace, "trusted")
    result = one_tool_call(fake_provider, workspace)
    assert marker.exists()
    assert ".swebash/ is not used" not in result.stderr


def test_settings_planted_in_a_trusted_folder_without_any_are_not_used(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    trust.remember(workspace, "trusted")  # trusted while it had no .swebash/
    settings(workspace, hook(marker))  # e.g. written by a sandboxed command
    result = one_tool_call(fake_provider, workspace)
    assert not marker.exists()
    assert "added: .swebash/config.toml" in result.stderr
    assert "changed since you trusted it" in result.stderr


def test_settings_trusted_once_planted_are_used(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    """The twin: the user trusts the folder after the settings appeared."""
    marker = tmp_path / "hook-ran"
    settings(workspace, hook(marker))
    trust.remember(workspace, "trusted")
    one_tool_call(fake_provider, workspace)
    assert marker.exists()


def test_the_trust_flag_still_uses_changed_settings(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    trust.remember(workspace, "trusted")
    settings(workspace, hook(marker))
    one_tool_call(fake_provider, workspace, "--trust")
    assert marker.exists()


def test_on_a_terminal_the_change_is_shown_and_asked_again(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    settings(workspace, "")
    trust.remember(workspace, "trusted")
    settings(workspace, hook(marker))
    (workspace / "a.txt").write_text("a\n")
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "read_file", json.dumps(
        {"path": "a.txt"}))]), Reply(text="all read"))
    child = spawn_ai(*model_args(fake_provider), "read a")
    child.expect("changed since you trusted them")
    child.expect(r"\+ pre_tool hook: touch")
    child.expect("changed: .swebash/config.toml")
    child.expect(r"Trust this folder again\? \[y\]es / \[n\]o: ")
    child.sendline("y")
    child.expect("all read")
    assert finish(child) == 0
    assert marker.exists()
    assert trust.changes(workspace) == []  # the new content is the trusted one now


# -- the pieces -----------------------------------------------------------------

def test_a_fingerprint_sees_content_links_and_new_files(tmp_path: Path) -> None:
    settings(tmp_path, "")
    before = fingerprint.take(tmp_path)
    (tmp_path / ".swebash" / "commands").mkdir()
    (tmp_path / ".swebash" / "commands" / "x.md").write_text("hi")
    after = fingerprint.take(tmp_path)
    assert before.digest != after.digest
    assert fingerprint.differences(before, after) == [
        "+ commands: /x", "added: .swebash/commands/x.md"]
    target = tmp_path / "elsewhere.toml"
    target.write_text("")
    (tmp_path / ".swebash" / "config.toml").unlink()
    (tmp_path / ".swebash" / "config.toml").symlink_to(target)
    linked = fingerprint.take(tmp_path)
    target.write_text(hook(tmp_path / "m"))  # what the link leads to changed
    assert fingerprint.take(tmp_path).digest != linked.digest
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "y.md").write_text("one")
    (tmp_path / ".swebash" / "more").symlink_to(elsewhere)  # a linked folder of commands
    before_edit = fingerprint.take(tmp_path)
    (elsewhere / "y.md").write_text("two")
    assert fingerprint.take(tmp_path).digest != before_edit.digest
    assert fingerprint.take(tmp_path).digest == fingerprint.take(tmp_path).digest


def test_an_empty_settings_folder_is_no_settings(tmp_path: Path) -> None:
    """A ``.swebash/`` with nothing in it (a mount point, say) holds no settings:
    a folder trusted without one is not asked about again for it."""
    trust.remember(tmp_path, "trusted")
    (tmp_path / ".swebash" / "commands").mkdir(parents=True)
    assert trust.changes(tmp_path) == []
    (tmp_path / ".swebash" / "commands" / "x.md").write_text("hi")  # the twin: a file is
    assert trust.changes(tmp_path) == ["+ commands: /x", "added: .swebash/commands/x.md"]


def test_an_unchanged_folder_has_an_unchanged_fingerprint(tmp_path: Path) -> None:
    """The twin: nothing changed, nothing reported (so trust holds)."""
    settings(tmp_path, hook(tmp_path / "m"))
    assert fingerprint.take(tmp_path).digest == fingerprint.take(tmp_path).digest
    trust.remember(tmp_path, "trusted")
    assert trust.changes(tmp_path) == []
    assert resolve_project(tmp_path, ask=None).trusted


def test_an_answer_stored_before_trust_bound_to_content_is_asked_again(tmp_path: Path) -> None:
    settings(tmp_path, hook(tmp_path / "m"))
    trust.store_path().parent.mkdir(parents=True, exist_ok=True)
    trust.store_path().write_text(json.dumps({str(tmp_path.resolve()): "trusted"}))
    assert trust.answer_for(tmp_path) == "trusted"
    status = resolve_project(tmp_path, ask=None)
    assert not status.trusted and "changed since you trusted it" in status.reason
    asked: list[list[str]] = []
    status = resolve_project(tmp_path, ask=lambda _root, changed: asked.append(changed) or True)
    assert status.trusted and asked and "remembered" in asked[0][0]
    assert trust.changes(tmp_path) == []


def test_a_declined_folder_stays_declined_whatever_changes(tmp_path: Path) -> None:
    settings(tmp_path, "")
    trust.remember(tmp_path, "declined")
    settings(tmp_path, hook(tmp_path / "m"))
    status = resolve_project(tmp_path, ask=lambda _r, _c: True)
    assert not status.trusted and "chose not to trust" in status.reason
