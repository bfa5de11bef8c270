"""The outside audit's configuration findings, through the installed `ai`: a
config error names the file, the key and the problem and exits 1; `ai config
show` says which values the managed policy fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import run_ai

ASK = ("-m", "openai/x", "--api-base", "http://127.0.0.1:9", "--no-tools", "hi")


@pytest.mark.parametrize(("body", "key", "problem"), [
    ('[permissions]\nallow = ["run_command("]\n', "permissions.allow", "run_command("),
    ('[permissions]\ndeny = ["no_such_tool"]\n', "permissions.deny", "unknown tool"),
    ('[sandbox]\nhost_allow = ["ls \\"x"]\n', "sandbox.host_allow", "No closing quotation"),
    ('[tools]\nworkspace = "/no/such/dir"\n', "tools.workspace", "no such directory"),
    ('[web_search]\nsearxng_url = "localhost:8888"\n', "web_search.searxng_url", "http"),
], ids=["allow", "deny", "host_allow", "workspace", "searxng_url"])
def test_a_config_error_names_file_key_and_problem(isolated: Path, workspace: Path, body: str,
                                                   key: str, problem: str) -> None:
    (isolated / "config.toml").write_text(body)
    result = run_ai(*ASK, cwd=workspace)
    assert result.returncode == 1
    line = result.stderr.strip()
    assert line.startswith("ai: config error: ") and "\n" not in line, line
    assert str(isolated / "config.toml") in line and f"key '{key}'" in line and problem in line


def test_a_bad_managed_value_names_the_managed_file(isolated: Path, workspace: Path) -> None:
    (isolated / "managed.toml").write_text('[permissions]\ndeny = ["run_command(("]\n')
    result = run_ai(*ASK, cwd=workspace)
    assert result.returncode == 1
    assert f"managed policy {isolated / 'managed.toml'}" in result.stderr
    assert "key 'permissions.deny'" in result.stderr


def test_config_show_names_the_managed_policy(isolated: Path) -> None:
    (isolated / "managed.toml").write_text('approval = "strict"\n')
    (isolated / "config.toml").write_text('approval = "yolo"\n')
    result = run_ai("config", "show", env={"SWEBASH_APPROVAL": "auto-edit"})
    assert result.returncode == 0, result.stderr
    (line,) = [ln for ln in result.stdout.splitlines() if ln.startswith("approval =")]
    assert line == f'approval = "strict"  # managed policy {isolated / "managed.toml"}'
