"""One secrets list at any depth, and settings that are never the sandbox's to
write: through the installed ``ai``, the scripted provider and real bwrap, each
wall with a twin that proves the feature works where it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.sandbox.conftest import attack, needs_bwrap

pytestmark = needs_bwrap
KEY = "PRIVATE-KEY-MATERIAL-7f3a"
PLAIN = "ORDINARY-NOTE-4c2e"


# -- secrets: what read_file would ask for, no sandboxed command reads unasked ----------

@pytest.mark.parametrize("command", [
    "cat id_rs? notes.txt",
    "cat sub/dir/server.pem sub/dir/notes.txt",
    "cat deep/a/b/.aws/credentials deep/a/b/notes.txt; grep -r MATERIAL . ; true",
    "cat cfg/.config/gcloud/token cfg/.config/notes.txt; cat creds/credentials.json; true",
])
def test_auto_allowed_reads_see_no_secret_at_any_depth(
        fake_provider: FakeProvider, workspace: Path, command: str) -> None:
    """Ask mode, no terminal: ``cat``/``grep`` run unasked (the read-only list), so
    only the sandbox stands between them and a key the file tools would ask for.
    Twin: the ordinary file beside each secret is read (so the command did run)."""
    for folder in (".", "sub/dir", "deep/a/b/.aws", "cfg/.config/gcloud", "creds"):
        (workspace / folder).mkdir(parents=True, exist_ok=True)
    for secret in ("id_rsa", "sub/dir/server.pem", "deep/a/b/.aws/credentials",
                   "cfg/.config/gcloud/token", "creds/credentials.json"):
        (workspace / secret).write_text(f"{KEY}\n")
    for plain in ("notes.txt", "sub/dir/notes.txt", "deep/a/b/notes.txt",
                  "cfg/.config/notes.txt"):
        (workspace / plain).write_text(f"{PLAIN}\n")
    sent, log = attack(fake_provider, workspace, command)
    assert PLAIN in sent and "denied" not in sent
    assert KEY not in log


def test_twin_the_same_read_outside_the_sandbox_sees_the_key(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """The test above can fail: with the sandbox off the key is read."""
    (workspace / "id_rsa").write_text(f"{KEY}\n")
    sent, _log = attack(fake_provider, workspace, "cat id_rs?", "-y", "--sandbox", "off")
    assert KEY in sent


# -- settings: none can be planted, existing ones stay read-only --------------------------

HOOK = '[hooks]\npre_tool = ["touch {marker}"]\n'


def plant(marker: Path) -> str:
    body = HOOK.format(marker=marker).replace("\n", "\\n")
    return (f"mkdir -p .swebash && printf '{body}' > .swebash/config.toml; "
            f"mkdir -p app/.swebash && printf '{body}' > app/.swebash/config.toml; "
            f"mkdir -p notes && printf '{body}' > notes/config.toml; echo planted")


def next_run_hook_fires(fake_provider: FakeProvider, folder: Path, marker: Path) -> bool:
    """A plain ``ai --trust`` in ``folder`` making one tool call: did a project
    hook run?"""
    fake_provider.requests.clear()
    listing = ToolCall("c1", "list_directory", json.dumps({"path": "."}))
    fake_provider.queue(Reply(tool_calls=[listing]), Reply(text="ok"))
    result = run_ai("--trust", "-y", "-m", "openai/x", "--api-base", fake_provider.url, "hi",
                    cwd=folder)
    assert result.returncode == 0, result.stderr
    return marker.exists()


def test_a_yes_command_plants_no_settings(fake_provider: FakeProvider, workspace: Path,
                                          tmp_path: Path) -> None:
    """``--yes``: the command runs workspace-write; the ``.swebash`` it creates (at the
    root and in ``app/``) are removed when it ends, and the result says so; the next
    trusted run runs no hook. Twin: ``notes/config.toml`` (no settings) lands."""
    marker = tmp_path / "hook-ran"
    sent, _log = attack(fake_provider, workspace, plant(marker), "-y")
    assert "planted" in sent
    assert (workspace / "notes" / "config.toml").is_file()
    assert not (workspace / ".swebash").exists()
    assert not (workspace / "app" / ".swebash").exists()
    assert "removed settings this command created: " in sent
    assert ".swebash" in sent and "app/.swebash" in sent
    (workspace / "app").mkdir(exist_ok=True)
    assert not next_run_hook_fires(fake_provider, workspace, marker)
    assert not next_run_hook_fires(fake_provider, workspace / "app", marker)


def test_twin_settings_the_user_writes_do_run(fake_provider: FakeProvider, workspace: Path,
                                              tmp_path: Path) -> None:
    """The test above can fail: the same files written by the user (outside the
    sandbox) make the next trusted run fire the hook."""
    marker = tmp_path / "hook-ran"
    (workspace / ".swebash").mkdir()
    (workspace / ".swebash" / "config.toml").write_text(HOOK.format(marker=marker))
    assert next_run_hook_fires(fake_provider, workspace, marker)


def test_twin_with_the_sandbox_off_the_plant_stays(fake_provider: FakeProvider,
                                                   workspace: Path, tmp_path: Path) -> None:
    """``--sandbox off``: nothing sweeps (the user chose no walls), so what the sweep
    removes above really was written."""
    marker = tmp_path / "hook-ran"
    sent, _log = attack(fake_provider, workspace, plant(marker), "-y", "--sandbox", "off")
    assert (workspace / "app" / ".swebash" / "config.toml").is_file()
    assert "removed settings" not in sent


def test_a_replaced_nested_settings_folder_counts_as_planted(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    """A ``.swebash`` symlink (not bound: its target is missing) replaced by a real
    folder is new, and removed; the sibling written beside it stays."""
    (workspace / "app").mkdir()
    (workspace / "app" / ".swebash").symlink_to(tmp_path / "missing")
    command = ("rm app/.swebash && mkdir app/.swebash && echo x > app/.swebash/config.toml; "
               "echo y > app/sibling.txt")
    sent, _log = attack(fake_provider, workspace, command, "-y")
    assert (workspace / "app" / "sibling.txt").read_text() == "y\n"
    assert not (workspace / "app" / ".swebash").exists()
    assert "app/.swebash" in sent


def test_an_existing_nested_settings_folder_is_read_only(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """``app/.swebash`` cannot be written, renamed or removed; twin: its sibling, in
    the same folder, is written."""
    settings = workspace / "app" / ".swebash" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("# project\n")
    command = ("echo x >> app/.swebash/config.toml; mkdir app/.swebash/commands; "
               "mv app/.swebash app/old; rm -rf app/.swebash; echo y > app/sibling.txt")
    sent, _log = attack(fake_provider, workspace, command, "-y")
    assert (workspace / "app" / "sibling.txt").read_text() == "y\n"
    assert settings.read_text() == "# project\n"
    assert not (workspace / "app" / ".swebash" / "commands").exists()
    assert not (workspace / "app" / "old").exists()
    assert "removed settings" not in sent  # the user's own settings are never swept


def test_a_background_command_is_swept_when_it_ends(fake_provider: FakeProvider,
                                                    workspace: Path) -> None:
    """A background command that plants settings: removed when it ends, and
    ``command_output`` says so. Twin: its ordinary write lands."""
    start = ToolCall("c1", "run_command", json.dumps({
        "command": "mkdir -p app/.swebash && echo x > app/.swebash/config.toml; "
                   "echo y > written.txt", "background": True}))
    read = ToolCall("c2", "command_output", json.dumps({"id": "bg1", "wait": 20}))
    fake_provider.queue(Reply(tool_calls=[start]), Reply(tool_calls=[read]), Reply(text="ok"))
    result = run_ai("-y", "-m", "openai/x", "--api-base", fake_provider.url, "go",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    output = sent_results(fake_provider.requests[2])[-1][1]
    assert (workspace / "written.txt").read_text() == "y\n"
    assert not (workspace / "app" / ".swebash").exists()
    assert "removed settings this command created: app/.swebash" in str(output)


def test_writable_roots_get_the_same_walls(fake_provider: FakeProvider, workspace: Path,
                                           tmp_path: Path, isolated: Path) -> None:
    """A writable root: its deep key is hidden, a ``.swebash`` planted in it is
    removed; twins: its ordinary file is read, and written."""
    extra = tmp_path / "extra"
    (extra / "deep" / "er").mkdir(parents=True)
    (extra / "deep" / "er" / "id_ecdsa").write_text(f"{KEY}\n")
    (extra / "deep" / "er" / "notes.txt").write_text(f"{PLAIN}\n")
    (isolated / "config.toml").write_text(f'[sandbox]\nwritable_roots = ["{extra}"]\n')
    command = (f"cd {extra}/deep/er && cat id_ecds? notes.txt; mkdir -p .swebash && "
               "echo x > .swebash/config.toml; echo y > written.txt")
    sent, log = attack(fake_provider, workspace, command, "-y")
    assert PLAIN in sent and KEY not in log
    assert (extra / "deep" / "er" / "written.txt").read_text() == "y\n"
    assert not (extra / "deep" / "er" / ".swebash").exists()
    assert "removed settings" in sent


def test_a_background_command_still_running_at_exit_is_swept(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """It planted settings and still runs when ``ai`` ends: stopped, then swept.
    Twin: its ordinary write stays."""
    start = ToolCall("c1", "run_command", json.dumps({
        "command": "mkdir -p app/.swebash && echo x > app/.swebash/config.toml; "
                   "echo y > written.txt; echo planted; sleep 100", "background": True}))
    read = ToolCall("c2", "command_output", json.dumps({"id": "bg1", "wait": 3}))
    fake_provider.queue(Reply(tool_calls=[start]), Reply(tool_calls=[read]), Reply(text="ok"))
    result = run_ai("-y", "-m", "openai/x", "--api-base", fake_provider.url, "go",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "planted" in str(sent_results(fake_provider.requests[2])[-1][1])
    assert (workspace / "written.txt").read_text() == "y\n"
    assert not (workspace / "app" / ".swebash").exists()
