"""Issue #27, the one reader, through the installed `ai`: files that reach the model
outside a tool call (AGENTS.md, `@path`, custom commands) get read_file's checks.
Each wall has a twin that proves the feature still works when it should."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import exit_repl, model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- marker-3f9a1c"


@pytest.fixture
def home(workspace: Path) -> Path:
    """A fake HOME holding the workspace and a private key beside it."""
    fake = workspace.parent / "home"
    (fake / ".ssh").mkdir(parents=True)
    (fake / ".ssh" / "id_ed25519").write_text(KEY + "\n")
    (fake / ".ssh" / "id_rsa").write_text(KEY + "\n")
    return fake


@pytest.fixture
def repo(home: Path) -> Path:
    """A cloned repository inside the fake HOME (git stores symlinks as they are)."""
    path = home / "repo"
    (path / ".git").mkdir(parents=True)
    return path


def _sent(fp: FakeProvider, n: int = 0) -> str:
    return json.dumps(fp.requests[n].body)


def _ask(fp: FakeProvider, cwd: Path, *, env: dict[str, str] | None = None) -> Any:
    fp.queue(Reply(text="Hello."))
    return run_ai(*model_args(fp), "hello", cwd=cwd, env=env)


# ------------------------------------------------------------------ AGENTS.md


def test_agents_md_linked_to_a_private_key_is_not_sent(fake_provider: FakeProvider,
                                                       home: Path, repo: Path) -> None:
    (repo / "AGENTS.md").symlink_to("../.ssh/id_ed25519")
    result = _ask(fake_provider, repo, env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert "marker-3f9a1c" not in _sent(fake_provider)
    notes = [line for line in result.stderr.splitlines() if "AGENTS.md" in line]
    assert len(notes) == 1 and "skipped" in notes[0] and "secrets path" in notes[0]


def test_twin_a_normal_agents_md_is_sent(fake_provider: FakeProvider, home: Path,
                                         repo: Path) -> None:
    (repo / "AGENTS.md").write_text("Always answer in haiku.\n")
    result = _ask(fake_provider, repo, env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert "Always answer in haiku." in _sent(fake_provider)
    assert "skipped" not in result.stderr


def test_agents_md_linked_to_proc_environ_does_not_send_the_key(
        fake_provider: FakeProvider, repo: Path) -> None:
    value = "sk-test-environ-9d8e7f6a5b4c"
    (repo / "docs").mkdir()
    (repo / "docs" / "AGENTS.md").symlink_to("/proc/self/environ")
    result = _ask(fake_provider, repo / "docs", env={"OPENAI_API_KEY": value})
    assert result.returncode == 0, result.stderr
    body = _sent(fake_provider)
    assert value not in body and "OPENAI_API_KEY" not in body
    assert "AGENTS.md skipped" in result.stderr and "outside" in result.stderr


def test_agents_md_linked_to_dev_zero_is_skipped_at_once(fake_provider: FakeProvider,
                                                         repo: Path) -> None:
    (repo / "AGENTS.md").symlink_to("/dev/zero")
    started = time.monotonic()
    result = _ask(fake_provider, repo)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 20
    assert "MemoryError" not in result.stderr
    # /dev/zero is outside the project: refused before it is even opened
    assert "AGENTS.md skipped" in result.stderr


@pytest.mark.parametrize("size", [1 << 30, 1 << 40], ids=["1GB", "1TB"])
def test_a_huge_sparse_agents_md_is_capped_before_reading(fake_provider: FakeProvider,
                                                          repo: Path, size: int) -> None:
    """1 GB as the issue says; 1 TB (sparse) can only pass if the cap comes first."""
    agents = repo / "AGENTS.md"
    with agents.open("wb") as f:
        f.write(b"Be brief.\n" + b"x" * 100_000)
        f.truncate(size)
    started = time.monotonic()
    result = _ask(fake_provider, repo)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 20
    assert "MemoryError" not in result.stderr
    body = _sent(fake_provider)
    assert "Be brief." in body and "cut at 32 KiB" in body
    assert len(body) < 200_000


# --------------------------------------------------------------- @path (REPL)


def _mention(spawn_ai: Any, fp: FakeProvider, question: str, *args: str,
             env: dict[str, str] | None = None) -> Any:
    child = start_repl(spawn_ai, fp, *args, env=env)
    fp.queue(Reply(text="Noted."))
    child.sendline(question)
    return child


def test_at_env_asks_even_under_yes(fake_provider: FakeProvider, spawn_ai: Any,
                                    workspace: Path) -> None:
    (workspace / ".env").write_text("DB_PASSWORD=hunter2-marker\n")
    child = _mention(spawn_ai, fake_provider, "what is in @.env", "--yes")
    # read_file's own question, for the mention
    child.expect(r"read_file \.env  \(to attach @\.env to your question\)")
    child.expect("Allow")
    child.sendline("n")
    child.expect("not attached: .env: the user said no")
    child.expect("Noted.")
    assert "hunter2-marker" not in _sent(fake_provider)
    exit_repl(child)


def test_at_a_private_key_in_home_asks_and_yes_attaches(fake_provider: FakeProvider,
                                                        spawn_ai: Any, home: Path) -> None:
    child = _mention(spawn_ai, fake_provider, "check @~/.ssh/id_rsa", "--yes",
                     env={"HOME": str(home)})
    child.expect("Allow")
    child.sendline("y")  # the question is real: the user's yes attaches it
    child.expect("attached ~/.ssh/id_rsa")
    child.expect("Noted.")
    assert "marker-3f9a1c" in _sent(fake_provider)
    exit_repl(child)


def test_twin_at_notes_attaches_unasked_under_yes(fake_provider: FakeProvider, spawn_ai: Any,
                                                  workspace: Path) -> None:
    (workspace / "notes.txt").write_text("buy milk\n")
    child = _mention(spawn_ai, fake_provider, "summarise @notes.txt", "--yes")
    child.expect("attached notes.txt")
    child.expect("Noted.")
    assert "Allow" not in (child.before or "")
    assert "buy milk" in _sent(fake_provider)
    exit_repl(child)


def test_at_our_own_config_is_not_attached(fake_provider: FakeProvider, spawn_ai: Any,
                                           isolated: Path) -> None:
    config = isolated / "config.toml"
    config.write_text('# token = "config-marker"\n')
    child = _mention(spawn_ai, fake_provider, f"show @{config}", "--yes")
    child.expect("not attached: ")
    child.expect("off limits")
    child.expect("Noted.")
    assert "config-marker" not in _sent(fake_provider)
    exit_repl(child)


# ------------------------------------------------------------ custom commands


def _command_repl(spawn_ai: Any, fp: FakeProvider, isolated: Path, name: str) -> Any:
    child = start_repl(spawn_ai, fp)
    fp.queue(Reply(text="Done."))
    child.sendline(f"/{name} now")
    return child


def test_a_custom_command_linked_to_a_secret_is_refused(fake_provider: FakeProvider,
                                                        spawn_ai: Any, isolated: Path,
                                                        home: Path) -> None:
    commands = isolated / "xdg-config" / "swebash" / "commands"  # <user config dir>/swebash
    commands.mkdir(parents=True)
    (commands / "leak.md").symlink_to(home / ".ssh" / "id_ed25519")
    child = _command_repl(spawn_ai, fake_provider, isolated, "leak")
    child.expect("custom command /leak is ignored")
    child.expect("swebash>")
    exit_repl(child)
    assert all("marker-3f9a1c" not in json.dumps(r.body) for r in fake_provider.requests)


def test_twin_a_custom_command_is_sent(fake_provider: FakeProvider, spawn_ai: Any,
                                       isolated: Path) -> None:
    commands = isolated / "xdg-config" / "swebash" / "commands"  # <user config dir>/swebash
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("Say hello $ARGUMENTS.\n")
    child = _command_repl(spawn_ai, fake_provider, isolated, "greet")
    child.expect("Done.")
    exit_repl(child)
    assert "Say hello now." in _sent(fake_provider)
    assert os.path.isfile(commands / "greet.md")


# --------------------------------------------------------------------- -i FILE


def test_image_option_refuses_a_secret_and_a_fifo_at_once(fake_provider: FakeProvider,
                                                          workspace: Path, home: Path) -> None:
    os.mkfifo(workspace / "shot.png")  # would block a plain read for ever
    started = time.monotonic()
    for path in (str(workspace / "shot.png"), str(home / ".ssh" / "id_rsa")):
        result = run_ai(*model_args(fake_provider), "-i", path, "what is this?")
        assert result.returncode == 1
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"ai: cannot attach {path}: ")
        assert "not a regular file" in line or "secrets path" in line
    assert time.monotonic() - started < 30
    assert fake_provider.requests == []  # twin: test_images.py sends a real -i image
