"""The outside audit's approval findings, replayed through the installed `ai`:
each test drives `ai` as a script or a user would and fails on the walk-around
it guards against (they were red before the fixes they come with)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.pty


def model_args(fp: FakeProvider) -> list[str]:
    return ["-m", "openai/x", "--api-base", fp.url]


def calls(*pairs: tuple[str, dict[str, Any]]) -> Reply:
    return Reply(tool_calls=[ToolCall(f"c{i}", name, json.dumps(args))
                             for i, (name, args) in enumerate(pairs, 1)])


def command(text: str) -> Reply:
    return calls(("run_command", {"command": text}))


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert "Traceback" not in (child.before or "")
    return int(child.exitstatus if child.exitstatus is not None else -child.signalstatus)


def remembered(isolated: Path) -> list[str]:
    path = isolated / "data" / "approvals.json"
    if not path.exists():
        return []
    return [rule for rules in json.loads(path.read_text()).values() for rule in rules]


def test_always_on_a_pipe_into_a_shell_remembers_no_shell(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, isolated: Path) -> None:
    """`a` on `echo ... | bash` once stored run_command(bash): every later
    `echo ANYTHING | bash` then ran without a question."""
    fake_provider.queue(command('echo "touch one" | bash'), Reply(text="First."))
    child = spawn_ai(*model_args(fake_provider), "one")
    child.expect("Allow")
    child.sendline("a")
    child.expect("First.")
    assert finish(child) == 0
    assert (workspace / "one").exists()  # "always" still ran it once
    assert not any(rule.startswith("run_command(bash") for rule in remembered(isolated))
    fake_provider.queue(command('echo "touch two" | bash'), Reply(text="Second."))
    result = run_ai(*model_args(fake_provider), "two", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "two").exists()
    (sent,) = sent_results(fake_provider.requests[-1])
    assert sent[2] and "no terminal" in sent[1]


@pytest.mark.parametrize("text", [
    'echo "rm victim" | bash', "bash <<EOF\nrm victim\nEOF", "bash <(echo rm victim)",
    "shopt -s expand_aliases\nalias l=rm\nl victim",
    "python3 -c \"import os; os.system('rm victim')\""], ids=lambda t: repr(t)[:30])
def test_yolo_deny_rule_is_not_walked_around(fake_provider: FakeProvider, workspace: Path,
                                             isolated: Path, text: str) -> None:
    (isolated / "config.toml").write_text('[permissions]\ndeny = ["run_command(rm:*)"]\n')
    (workspace / "victim").write_text("keep me\n")
    fake_provider.queue(command(text), Reply(text="Done."))
    result = run_ai("-y", *model_args(fake_provider), "clean up", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "victim").exists()
    (sent,) = sent_results(fake_provider.requests[-1])
    assert sent[2] and "deny rules" in sent[1]


def test_yolo_deny_twin_without_the_rule_runs(fake_provider: FakeProvider,
                                              workspace: Path) -> None:
    """The twin: without the deny rule the same command does delete the file,
    so the test above would notice a walk-around."""
    (workspace / "victim").write_text("x\n")
    fake_provider.queue(command('echo "rm victim" | bash'), Reply(text="Done."))
    result = run_ai("-y", *model_args(fake_provider), "clean up", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "victim").exists()


def test_allow_rule_does_not_cover_backquotes_in_a_here_document(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text('[permissions]\nallow = ["run_command(cat:*)"]\n'
                                          '[sandbox]\npreview = false\n')
    fake_provider.queue(command("cat <<EOF\n`touch pwned`\nEOF"), Reply(text="Done."))
    result = run_ai(*model_args(fake_provider), "show", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "pwned").exists()
    (sent,) = sent_results(fake_provider.requests[-1])
    assert sent[2] and "no terminal" in sent[1]
    fake_provider.queue(command("cat <<EOF\nplain\nEOF"), Reply(text="Done."))
    result = run_ai(*model_args(fake_provider), "show", cwd=workspace)
    (sent,) = sent_results(fake_provider.requests[-1])
    assert not sent[2] and "plain" in sent[1]  # the rule still covers a plain here-document


@pytest.mark.parametrize("link", ["outside", "inside"])
def test_auto_edit_write_after_a_symlink_swap_is_judged_again(
        fake_provider: FakeProvider, workspace: Path, isolated: Path, tmp_path: Path,
        link: str) -> None:
    """One reply: an allowed command swaps d for a symlink, then write_file d/x.
    The write was judged before the command ran (d inside) and wrote outside
    unasked; the twin links inside the workspace and must still write."""
    (isolated / "config.toml").write_text(
        '[permissions]\nallow = ["run_command(rm:*)", "run_command(ln:*)"]\n')
    target = tmp_path / "outside" if link == "outside" else workspace / "real"
    target.mkdir()
    (workspace / "d").mkdir()
    fake_provider.queue(calls(("run_command", {"command": f"rm -r d; ln -s {target} d"}),
                              ("write_file", {"path": "d/evil.txt", "content": "x\n"})),
                        Reply(text="Done."))
    result = run_ai("--approval", "auto-edit", *model_args(fake_provider), "go", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "d").is_symlink()  # the command did swap it
    first, second = sent_results(fake_provider.requests[-1])
    assert not first[2], first[1]
    if link == "outside":
        assert not (target / "evil.txt").exists()
        assert second[2] and "no terminal" in second[1]
    else:
        assert (target / "evil.txt").read_text() == "x\n" and not second[2]


def test_auto_edit_never_writes_repository_control_files_unasked(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """auto-edit once wrote .git/config (core.fsmonitor = a command: the user's own
    next `git status` ran it on the host), .git/hooks and a trusted project's
    .swebash/ settings without a question. The plain file beside them is the twin."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    config = (workspace / ".git" / "config").read_text()
    fake_provider.queue(calls(
        ("edit_file", {"path": ".git/config", "old_text": "[core]",
                       "new_text": "[core]\n\tfsmonitor = touch pwned; false"}),
        ("write_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch x\n"}),
        ("write_file", {"path": ".swebash/config.toml", "content": "[hooks]\n"}),
        ("write_file", {"path": "sub/.git", "content": "gitdir: /tmp/elsewhere\n"}),
        ("write_file", {"path": "plain.txt", "content": "fine\n"})), Reply(text="Done."))
    result = run_ai("--approval", "auto-edit", *model_args(fake_provider), "go", cwd=workspace)
    assert result.returncode == 0, result.stderr
    *control, plain = sent_results(fake_provider.requests[-1])
    assert all(r[2] and "no terminal" in r[1] for r in control), control
    assert (workspace / ".git" / "config").read_text() == config
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".swebash").exists() and not (workspace / "sub" / ".git").exists()
    assert not plain[2] and (workspace / "plain.txt").read_text() == "fine\n"


def test_always_on_rm_build_does_not_allow_other_rms(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, isolated: Path) -> None:
    for name in ("build", "src"):
        (workspace / name).mkdir()
        (workspace / name / "f").write_text("x\n")
    fake_provider.queue(command("rm -rf build"), Reply(text="First."))
    child = spawn_ai(*model_args(fake_provider), "clean")
    child.expect("Allow")
    child.sendline("a")
    child.expect("First.")
    assert finish(child) == 0
    assert not (workspace / "build").exists()
    assert remembered(isolated) == ["run_command(rm -rf build)"]
    for other in ("rm -rf src", "rm -rf build src", "rm -rf build; rm -rf src"):
        fake_provider.queue(command(other), Reply(text="Again."))
        result = run_ai(*model_args(fake_provider), "clean", cwd=workspace)
        assert result.returncode == 0, result.stderr
        assert (workspace / "src" / "f").exists(), other
    (workspace / "build").mkdir()
    fake_provider.queue(command("rm -rf build"), Reply(text="Again."))
    assert run_ai(*model_args(fake_provider), "clean", cwd=workspace).returncode == 0
    assert not (workspace / "build").exists()  # the remembered rule itself still works
