"""Hooks wired through the real loop, and the config subcommands."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def write_reply(path: str = "note.txt") -> Reply:
    return Reply(tool_calls=[ToolCall("w1", "write_file",
                                      json.dumps({"path": path, "content": "x\n"}))])


def test_a_pre_tool_hook_denies_even_in_yolo(fake_provider: FakeProvider, workspace: Path,
                                             isolated: Path, tmp_path: Path) -> None:
    hook = tmp_path / "no-writes.sh"
    seen = tmp_path / "seen.json"
    hook.write_text(f"#!/bin/sh\ncat > {seen}\necho 'writes are frozen today' >&2\nexit 2\n")
    hook.chmod(0o755)
    (isolated / "config.toml").write_text(f'[hooks]\npre_tool = ["{hook}"]\n')
    fake_provider.queue(write_reply(), Reply(text="Understood, no write."))
    result = run_ai("-y", "-m", "openai/x", "--api-base", fake_provider.url, "write",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "note.txt").exists()
    (sent,) = sent_results(fake_provider.requests[1])
    assert sent[2] and "writes are frozen today" in sent[1]
    payload = json.loads(seen.read_text())
    assert payload["tool"] == "write_file" and payload["arguments"]["path"] == "note.txt"


def test_a_post_tool_hook_sees_the_result(fake_provider: FakeProvider, workspace: Path,
                                          isolated: Path, tmp_path: Path) -> None:
    log = tmp_path / "post.json"
    (isolated / "config.toml").write_text(f'[hooks]\npost_tool = ["cat > {log}"]\n')
    fake_provider.queue(write_reply(), Reply(text="Done."))
    result = run_ai("-y", "-m", "openai/x", "--api-base", fake_provider.url, "write",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    payload = json.loads(log.read_text())
    assert payload["event"] == "post_tool" and payload["is_error"] is False
    assert (workspace / "note.txt").exists()


def test_config_show_lists_and_forget_removes_remembered_rules(workspace: Path) -> None:
    from swebash_py.approvals import remembered

    remembered.add(workspace, "run_command(git status)")
    shown = run_ai("config", "show", cwd=workspace)
    assert shown.returncode == 0 and "run_command(git status)" in shown.stdout
    assert run_ai("config", "forget", "run_command(git status)", cwd=workspace).returncode == 0
    assert "run_command(git status)" not in run_ai("config", "show", cwd=workspace).stdout
    assert run_ai("config", "forget", "run_command(git status)", cwd=workspace).returncode == 1


def test_config_show_redacts_secrets_and_names_the_backend(isolated: Path) -> None:
    (isolated / "config.toml").write_text('model = "anthropic/claude-x"\n'
                                          'system_prompt = "be brief"\n')
    result = run_ai("config", "show", env={"ANTHROPIC_API_KEY": "sk-ant-secret-value"})
    assert result.returncode == 0, result.stderr
    assert "sk-ant-secret-value" not in result.stdout
    assert "ANTHROPIC_API_KEY" in result.stdout
    assert "direct (anthropic wire format)" in result.stdout
    assert '"be brief"' in result.stdout


def test_config_init_writes_a_file_that_loads(isolated: Path) -> None:
    result = run_ai("config", "init")
    assert result.returncode == 0, result.stderr
    written = (isolated / "config.toml").read_text()
    assert written == (Path(__file__).parents[2] / "config.example.toml").read_text()
    assert run_ai("config", "init").returncode == 1  # never overwrites silently
    assert run_ai("config", "path").stdout.strip() == str(isolated / "config.toml")


def test_every_documented_key_is_a_real_key(isolated: Path) -> None:
    """Uncomment every `# key = value` line of the example: it must still load."""
    import re
    import tomllib

    from swebash_py.config.settings import Settings

    example = (Path(__file__).parents[2] / "config.example.toml").read_text()
    uncommented = re.sub(r"(?m)^# (\w+ = .*|\[mcp_servers\.\w+\])$", r"\1", example)
    data = tomllib.loads(uncommented)
    settings = Settings.from_data(data)
    assert settings.model == "openai/gpt-4o-mini"
    assert settings.permissions.deny and settings.hooks.pre_tool
    assert settings.mcp_servers["time"].command and settings.mcp_servers["docs"].url
