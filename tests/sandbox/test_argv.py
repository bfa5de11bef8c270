"""The bwrap command line, the sandbox-exec profile and the environment, held
against the contract's Sandbox list point by point (the attack tests prove
the same points with real effects)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.process.values import REDACTED, redact, secret_values
from swebash_py.sandbox.bwrap import bwrap_argv
from swebash_py.sandbox.env import sandbox_env
from swebash_py.sandbox.notes import access_note, status_note
from swebash_py.sandbox.policy import SandboxPolicy
from swebash_py.sandbox.seatbelt import profile


def policy(ws: Path, mode: str = "read-only", **extra: object) -> SandboxPolicy:
    return SandboxPolicy(mode, ws, **extra)  # type: ignore[arg-type]


def pairs(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_read_only_whole_filesystem_private_dirs_own_proc(workspace: Path) -> None:
    argv = bwrap_argv(policy(workspace), ["true"])
    assert argv[1:4] == ["--ro-bind", "/", "/"]
    assert "/proc" in pairs(argv, "--proc") and "/dev" in pairs(argv, "--dev")
    assert {"/tmp", "/var/tmp", "/dev/shm", "/run"} <= set(pairs(argv, "--tmpfs"))
    assert str(workspace) in pairs(argv, "--ro-bind") and str(workspace) not in pairs(
        argv, "--bind")
    for flag in ("--unshare-all", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert pairs(argv, "--cap-drop") == ["ALL"] and "--share-net" not in argv
    assert argv[-2:] == ["--", "true"]


def test_network_only_when_configured(workspace: Path) -> None:
    assert "--share-net" in bwrap_argv(policy(workspace, network=True), ["true"])


def test_workspace_write_binds_roots_keeps_git_read_only(workspace: Path,
                                                         tmp_path: Path) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("")
    extra = tmp_path / "extra"
    extra.mkdir()
    argv = bwrap_argv(policy(workspace, "workspace-write", writable_roots=(extra,)), ["true"])
    binds = pairs(argv, "--bind")
    assert binds[:3] == [str(workspace), str(extra), str(workspace / ".git")]
    ro = pairs(argv, "--ro-bind")
    assert str(workspace / ".git" / "config") in ro and str(workspace / ".git" / "hooks") in ro
    assert argv.index(str(workspace / ".git" / "config")) > argv.index(str(workspace))


def test_hidden_paths_are_masked_after_the_writable_binds(workspace: Path) -> None:
    (workspace / ".env").write_text("X=1\n")
    (workspace / ".ssh").mkdir()
    argv = bwrap_argv(policy(workspace, "workspace-write",
                             hidden=(workspace / ".env", workspace / ".ssh")), ["true"])
    env_mask = argv.index(str(workspace / ".env"))
    assert argv[env_mask - 2] == "--ro-bind" and argv[env_mask - 1].endswith("/empty")
    assert env_mask > argv.index("--bind")
    assert str(workspace / ".ssh") in pairs(argv, "--tmpfs")
    assert str(workspace / ".ssh") in pairs(argv, "--remount-ro")


def test_environment_is_an_allow_list() -> None:
    env = sandbox_env({"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "OPENAI_API_KEY": "k",
                       "GITHUB_TOKEN": "t", "DB_PASSWORD": "p", "AWS_SECRET_ACCESS_KEY": "s",
                       "RANDOM_VAR": "r", "SSH_AUTH_SOCK": "/tmp/agent", "LC_SECRET": "x"})
    assert env["PATH"] == "/bin" and env["HOME"] == "/h" and env["LC_ALL"] == "C"
    for gone in ("OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY",
                 "RANDOM_VAR", "SSH_AUTH_SOCK", "LC_SECRET"):
        assert gone not in env
    assert env["TERM"] == "dumb" and env["GIT_TERMINAL_PROMPT"] == "0"


def test_seatbelt_profile(workspace: Path, tmp_path: Path) -> None:
    home_ssh = tmp_path / ".ssh"
    ro = profile(policy(workspace, hidden=(home_ssh,)), tmp_path / "t")
    assert ro.startswith("(version 1)\n(deny default)")
    assert f'(allow file-write* (subpath "{workspace}"))' not in ro
    assert f'(deny file-read* file-write* (subpath "{home_ssh}"))' in ro
    assert "network-outbound" not in ro
    ww = profile(policy(workspace, "workspace-write", network=True), tmp_path / "t")
    assert f'(allow file-write* (subpath "{workspace}"))' in ww
    assert f'(deny file-write* (subpath "{workspace}/.git/config"))' in ww
    assert f'(deny file-write* (subpath "{workspace}/.git/hooks"))' in ww
    assert "(allow network-outbound (remote ip))" in ww
    assert ww.index("allow file-write* (subpath") < ww.index("deny file-write* (subpath")


def test_seatbelt_quotes_paths(tmp_path: Path) -> None:
    odd = tmp_path / 'we"ird\\ws'
    assert '"' + str(odd).replace("\\", "\\\\").replace('"', '\\"') + '"' in profile(
        policy(odd, "workspace-write"), tmp_path)


def test_status_line_is_one_short_line_naming_the_sandbox(workspace: Path) -> None:
    for mode in ("read-only", "workspace-write"):
        line = status_note(policy(workspace, mode, network=True))
        assert "sandbox" in line and len(line) <= 120 and "\n" not in line


@pytest.mark.parametrize("output", ["touch: cannot touch 'x': Read-only file system",
                                    "curl: (6) Could not resolve host: example.com",
                                    "bash: /etc/x: Permission denied"])
def test_access_failures_name_the_sandbox_and_escalation(workspace: Path, output: str) -> None:
    note = access_note(output, policy(workspace))
    assert note is not None and "sandbox" in note and "escalate: true" in note


@pytest.mark.parametrize("output", [
    "  File \"/usr/lib/python3/socket.py\", line 232, in __init__\n"
    "    _socket.socket.__init__(self, family, type, proto, fileno)\n"
    "PermissionError: [Errno 1] Operation not permitted",
    "permission denied while trying to connect to the Docker daemon socket at "
    "unix:///var/run/docker.sock: dial unix /var/run/docker.sock: socket: "
    "operation not permitted",
    "Error connecting to agent: Operation not permitted",
    "nc: socket: Operation not permitted"])
def test_a_refused_unix_socket_is_named_as_a_sandbox_limit(workspace: Path,
                                                           output: str) -> None:
    note = access_note(output, policy(workspace, network=True))
    assert note is not None and "unix sockets" in note and "escalate: true" in note


def test_other_refusals_keep_the_general_note(workspace: Path) -> None:
    note = access_note("rm: cannot remove 'x': Operation not permitted", policy(workspace))
    assert note is not None and "unix sockets" not in note and "escalate: true" in note


def test_status_line_says_unix_sockets_stay_closed_with_network_on(workspace: Path) -> None:
    assert "IP network on, no unix sockets" in status_note(policy(workspace, network=True))
    assert "no network, no unix sockets" in status_note(policy(workspace))


def test_secret_values_redacted() -> None:
    env = {"OPENAI_API_KEY": "sk-abcdefgh12", "MY_TOKEN": "tok-12345678",
           "SHORT_KEY": "1234567", "HOME": "/home/someone-long"}
    values = secret_values(env)
    text = "a sk-abcdefgh12 b tok-12345678 c 1234567 /home/someone-long"
    assert redact(text, values) == f"a {REDACTED} b {REDACTED} c 1234567 /home/someone-long"


def test_run_command_tells_the_model_about_the_isolation() -> None:
    from swebash_py.tools.command import RunCommand

    spec = RunCommand().spec()
    text = spec.description
    for words in ("sandbox", "processes", "ports", "no network", "escalate: true"):
        assert words in text
    assert "escalate" in spec.parameters["properties"]


def test_status_line_does_not_claim_a_filter_this_machine_lacks(
        workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from swebash_py.sandbox import seccomp

    monkeypatch.setattr(seccomp, "supported", lambda machine=None: False)
    monkeypatch.setattr("sys.platform", "linux")
    line = status_note(policy(workspace, network=True))
    assert "unix sockets open" in line and "no unix sockets" not in line
