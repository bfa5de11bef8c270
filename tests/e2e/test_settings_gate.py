"""The one settings gate, through the installed `ai` (issue #27): the managed
policy holds against REPL commands (`/sandbox`, `/approval`, `/model`) and
against ``$SWEBASH_MANAGED_CONFIG`` when the system file exists.

The system file is ``/etc/swebash/managed.toml``; these tests never touch the
machine's ``/etc``: ``ai`` runs in a private mount namespace (``unshare -m``,
root) over whose ``/etc`` a throw-away overlay is mounted, so the file exists
for that process alone. (No test-only switch of the path exists in ``ai``
itself: any such switch is one an attacker could flip too.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.e2e.conftest import AI, ai_env, finish
from tests.fakeprovider import FakeProvider

PRIVATE_ETC = r"""
set -e
scratch=$1; policy=$2; shift 2
mount -t tmpfs none "$scratch"
mkdir "$scratch/upper" "$scratch/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$scratch/upper,workdir=$scratch/work" /etc
rm -rf /etc/swebash
if [ -n "$policy" ]; then mkdir /etc/swebash; cp "$policy" /etc/swebash/managed.toml; fi
exec "$@"
"""

needs_namespaces = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="a private /etc needs root and unshare")


def private_etc(tmp_path: Path, policy: str | None) -> list[str]:
    """The command prefix that runs a program with ``policy`` (None: no file) as
    ``/etc/swebash/managed.toml``, seen by that program only."""
    scratch = tmp_path / "etc-scratch"
    scratch.mkdir(exist_ok=True)
    source = ""
    if policy is not None:
        (tmp_path / "system-managed.toml").write_text(policy)
        source = str(tmp_path / "system-managed.toml")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", PRIVATE_ETC, "sh",
            str(scratch), source]


def config_show(prefix: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([*prefix, AI, "config", "show"], capture_output=True, text=True,
                          env=ai_env(env), cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@needs_namespaces
def test_the_environment_cannot_switch_the_system_policy_off(
        tmp_path: Path, workspace: Path) -> None:
    prefix = private_etc(tmp_path, 'approval = "strict"\n')
    shown = config_show(prefix, {"SWEBASH_MANAGED_CONFIG": "/dev/null"}, workspace)
    assert 'approval = "strict"  # managed policy /etc/swebash/managed.toml' in shown


@needs_namespaces
def test_without_a_system_file_the_variable_names_the_policy(
        tmp_path: Path, workspace: Path) -> None:
    """The twin: the same namespace, no system file: ``$SWEBASH_MANAGED_CONFIG`` counts."""
    mine = tmp_path / "mine.toml"
    mine.write_text('approval = "auto-edit"\n')
    shown = config_show(private_etc(tmp_path, None), {"SWEBASH_MANAGED_CONFIG": str(mine)},
                        workspace)
    assert f'approval = "auto-edit"  # managed policy {mine}' in shown


def repl(prefix: list[str], fp: FakeProvider, workspace: Path,
         env: dict[str, str] | None = None) -> pexpect.spawn:
    argv = [*prefix, AI, "-m", "openai/x", "--api-base", fp.url]
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(workspace), env=ai_env(env),
                          encoding="utf-8", timeout=30, dimensions=(40, 200))
    child.expect("swebash>")
    return child


def command(child: pexpect.spawn, line: str, expect: str) -> str:
    """Send ``line``; what was shown up to ``expect``, without escapes, on one line."""
    from tests.e2e.test_pty_repl_ux import plain

    child.sendline(line)
    child.expect(expect)
    seen = plain(str(child.before) + str(child.after))
    child.expect("swebash>")
    return " ".join(seen.split())


@needs_namespaces
def test_sandbox_off_is_refused_under_a_managed_sandbox_mode(
        tmp_path: Path, workspace: Path, fake_provider: FakeProvider) -> None:
    child = repl(private_etc(tmp_path, '[sandbox]\nmode = "workspace-write"\n'), fake_provider,
                 workspace)
    seen = command(child, "/sandbox off", r"sandbox: \S+")
    assert ("/sandbox off ignored: sandbox.mode is fixed to 'workspace-write' by the managed "
            "policy /etc/swebash/managed.toml") in seen
    assert "sandbox: workspace-write" in seen
    child.sendline("/exit")
    assert finish(child) == 0


def test_sandbox_off_works_without_a_managed_policy(
        workspace: Path, fake_provider: FakeProvider) -> None:
    """The twin: the same command, no policy: the sandbox is switched off."""
    child = repl([], fake_provider, workspace)
    seen = command(child, "/sandbox off", r"sandbox: \S+")
    assert "ignored" not in seen and "sandbox: off" in seen
    child.sendline("/exit")
    assert finish(child) == 0


def test_model_and_approval_go_through_the_same_gate(
        isolated: Path, workspace: Path, fake_provider: FakeProvider) -> None:
    (isolated / "managed.toml").write_text('model = "openai/x"\napproval = "ask"\n')
    child = repl([], fake_provider, workspace)
    seen = command(child, "/model openai/y", r"model: \S+")
    assert "/model openai/y ignored: model is fixed to 'openai/x'" in seen
    assert "model: openai/x" in seen
    seen = command(child, "/approval yolo", r"approval: \S+")
    assert "/approval yolo ignored: approval is fixed to 'ask'" in seen
    assert "approval: ask" in seen
    seen = command(child, "/sandbox read-only", r"sandbox: \S+")  # not fixed: changes
    assert "ignored" not in seen and "sandbox: read-only" in seen
    child.sendline("/exit")
    assert finish(child) == 0


def test_model_and_approval_change_freely_without_a_policy(
        workspace: Path, fake_provider: FakeProvider) -> None:
    """The twin: the same commands, no policy."""
    child = repl([], fake_provider, workspace)
    seen = command(child, "/model openai/y", r"model: \S+")
    assert "ignored" not in seen and "model: openai/y" in seen
    seen = command(child, "/approval yolo", r"approval: \S+")
    assert "ignored" not in seen and "approval: yolo" in seen
    child.sendline("/exit")
    assert finish(child) == 0
