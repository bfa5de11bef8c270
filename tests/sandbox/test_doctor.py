"""`ai doctor` says what works, why not, and what to install; exit 1 when broken."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import Reply, ToolCall
from tests.sandbox.conftest import attack, needs_bwrap


def path_without_bwrap(tmp_path: Path) -> str:
    """A PATH with everything but bwrap (links to the other tools we need)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("sh", "bash", "rg", "git"):
        if found := shutil.which(name):
            os.symlink(found, bin_dir / name)
    return str(bin_dir)


@needs_bwrap
def test_all_good_exits_0(workspace: Path, fake_provider: Any) -> None:
    # doctor contacts the provider now (#29): the internet is mocked by the fake one
    result = run_ai("doctor", cwd=workspace, env={"OPENAI_API_KEY": "sk-doctor-test",
                                                  "SWEBASH_MODEL": "openai/x",
                                                  "SWEBASH_API_BASE": fake_provider.url})
    assert result.returncode == 0, result.stdout
    assert "ok    sandbox: bubblewrap" in result.stdout
    assert "OPENAI_API_KEY is set" in result.stdout and "sk-doctor-test" not in result.stdout


def test_no_bwrap_says_why_and_what_to_install(workspace: Path, tmp_path: Path) -> None:
    result = run_ai("doctor", cwd=workspace, env={"OPENAI_API_KEY": "sk-doctor-test",
                                                  "PATH": path_without_bwrap(tmp_path)})
    assert result.returncode == 1
    assert "fail  sandbox" in result.stdout and "apt-get install bubblewrap" in result.stdout


def test_missing_key_is_broken(workspace: Path) -> None:
    result = run_ai("doctor", cwd=workspace)
    assert result.returncode == 1 and "OPENAI_API_KEY is not set" in result.stdout


def test_sandbox_off_is_said(workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text('[sandbox]\nmode = "off"\n')
    result = run_ai("doctor", cwd=workspace, env={"OPENAI_API_KEY": "sk-doctor-test"})
    assert "warn  sandbox: off" in result.stdout


def test_without_a_sandbox_commands_ask(fake_provider: Any, workspace: Path,
                                        tmp_path: Path) -> None:
    """The read-only command list applies only inside a sandbox: `ls` asks (and,
    with no terminal, is denied); a plain file read still runs."""
    no_bwrap = {"PATH": path_without_bwrap(tmp_path)}
    sent, _log = attack(fake_provider, workspace, "ls", env=no_bwrap)
    assert sent.startswith("Error:") and "no terminal" in sent


@needs_bwrap
def test_with_a_sandbox_the_read_only_list_runs(fake_provider: Any, workspace: Path) -> None:
    sent, _log = attack(fake_provider, workspace, "ls")  # twin of the above
    assert not sent.startswith("Error:") and "[sandbox: read-only" in sent


def test_file_reads_run_without_a_sandbox(fake_provider: Any, workspace: Path,
                                          tmp_path: Path) -> None:
    (workspace / "a.txt").write_text("plain text\n")
    fake_provider.queue(Reply(tool_calls=[ToolCall("r1", "read_file", '{"path": "a.txt"}')]),
                        Reply(text="ok"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "go", cwd=workspace,
                    env={"PATH": path_without_bwrap(tmp_path)})
    assert result.returncode == 0
    ((_id, sent, _err),) = sent_results(fake_provider.requests[1])
    assert "plain text" in sent


def test_api_base_userinfo_is_redacted_in_config_show_and_errors(workspace: Path,
                                                                 isolated: Path) -> None:
    (isolated / "config.toml").write_text('api_base = "http://bob:pa55word@127.0.0.1:9/v1"\n'
                                          "max_retries = 0\n")
    shown = run_ai("config", "show", cwd=workspace)
    assert "pa55word" not in shown.stdout and "bob:[REDACTED]@127.0.0.1" in shown.stdout
    failed = run_ai("-m", "openai/x", "hi", cwd=workspace, env={"OPENAI_API_KEY": "sk-x"})
    assert failed.returncode == 1 and "127.0.0.1:9" in failed.stderr + failed.stdout
    assert "pa55word" not in failed.stderr + failed.stdout
