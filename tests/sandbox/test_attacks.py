"""Each attack class, through the installed ``ai`` and the scripted provider,
against real bwrap; each with a twin (``--sandbox off``) showing the check
can fail."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from swebash_py.sandbox import overlay
from tests.e2e.conftest import AI, ai_env
from tests.fakeprovider import FakeProvider, Reply
from tests.sandbox.conftest import attack, command_reply, host_pids, needs_bwrap, wait_until

pytestmark = needs_bwrap
OFF = ("--sandbox", "off")
SORT_SH = "sort -S 1 --co=sh lines.txt > /dev/null"


@pytest.fixture(autouse=True)
def lines(workspace: Path) -> None:
    """Input that makes sort spill to temporary files through its "compressor"."""
    (workspace / "lines.txt").write_text("touch pwned\n" + "".join(
        f": {i}\n" for i in range(5_000)))


# -- read-only: a "read-only" command that runs a program writes nothing ---------------

def test_sort_compress_program_runs_unasked_but_writes_nothing(
        fake_provider: FakeProvider, workspace: Path) -> None:
    sent, _log = attack(fake_provider, workspace, SORT_SH)  # ask mode, no terminal
    assert not (workspace / "pwned").exists()
    assert "sandbox" in sent and "denied" not in sent  # it ran, read-only


@pytest.mark.parametrize("flags", [("-y", "--sandbox", "read-only"), ("-y", *OFF)])
def test_read_only_sandbox_is_what_stops_the_write(
        fake_provider: FakeProvider, workspace: Path, flags: tuple[str, ...]) -> None:
    attack(fake_provider, workspace, SORT_SH, *flags)
    assert (workspace / "pwned").exists() is (flags[-1] == "off")


def test_git_config_programs_run_read_only(fake_provider: FakeProvider,
                                           workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run(["git", "config", "core.fsmonitor", "touch pwned; false"], cwd=workspace,
                   check=True)
    attack(fake_provider, workspace, "git status")
    assert not (workspace / "pwned").exists()
    fake_provider.requests.clear()
    attack(fake_provider, workspace, "git status", "-y", *OFF)  # twin: the hook is real
    assert (workspace / "pwned").exists()


# -- workspace-write: .git and our own files stay out of reach -------------------------

@pytest.mark.parametrize("off", [False, True])
def test_git_config_hooks_and_dir_cannot_be_changed(
        fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    command = ("echo '[core]' >> .git/config; echo x > .git/hooks/pre-commit; "
               "mv .git .git-old; echo done > written")
    attack(fake_provider, workspace, command, "-y", *(OFF if off else ()))
    assert (workspace / "written").exists()  # approved: the workspace is writable
    assert (workspace / ".git-old").exists() is off
    if not off:
        assert "[core]\n[core]" not in (workspace / ".git/config").read_text()
        assert not (workspace / ".git/hooks/pre-commit").exists()


@pytest.mark.parametrize("off", [False, True])
def test_project_settings_cannot_be_changed(
        fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    """A project's ``.swebash/`` (MCP servers, hooks, allow rules) stays read-only."""
    settings = workspace / ".swebash" / "config.toml"
    settings.parent.mkdir()
    settings.write_text("# project\n")
    command = ("echo x > .swebash/config.toml; mkdir .swebash/commands; "
               "mv .swebash .swebash-old; echo done > written")
    attack(fake_provider, workspace, command, "-y", *(OFF if off else ()))
    assert (workspace / "written").read_text() == "done\n"  # the workspace is writable
    assert (workspace / ".swebash-old").exists() is off
    if not off:
        assert settings.read_text() == "# project\n"
        assert not (workspace / ".swebash" / "commands").exists()


@pytest.mark.parametrize("off", [False, True])
def test_own_data_cannot_be_rewritten_from_the_workspace(
        fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    data = workspace / ".local" / "swebash"
    command = "cd .local/swe''bash && echo '[]' > planted.json; ls"
    attack(fake_provider, workspace, command, "-y", *(OFF if off else ()),
           env={"SWEBASH_HOME": str(data)})
    assert (data / "planted.json").exists() is off


# -- secrets: files and environment ---------------------------------------------------

@pytest.mark.parametrize("off", [False, True])
def test_env_files_and_home_secrets_are_masked(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path, off: bool) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SSHKEYMATERIAL\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".env.local").write_text("DOTENVVALUE=1\n")
    command = "cat .en* sub/.en*; cat ~/.ss''h/id_r''sa; grep -r VALUE . ; true"
    _sent, log = attack(fake_provider, workspace, command, "-y", *(OFF if off else ()),
                       env={"HOME": str(home)})
    for secret in ("SSHKEYMATERIAL", "DOTENVVALUE"):
        assert (secret in log) is off
    assert (home / ".ssh" / "id_rsa").read_text() == "SSHKEYMATERIAL\n"


@pytest.mark.parametrize("off", [False, True])
def test_ai_environment_is_not_visible_through_proc(
        fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    command = "tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ; env"
    _sent, log = attack(fake_provider, workspace, command, "-y", *(OFF if off else ()),
                       env={"HARMLESS_LOOKING_MARK": "marker-4f1d9"})
    assert ("marker-4f1d9" in log) is off


def test_provider_key_values_are_redacted_even_outside(
        fake_provider: FakeProvider, workspace: Path) -> None:
    # ai's own environment: the parent of the command's parent (the reaper)
    command = "tr '\\0' '\\n' < /proc/$(cut -d' ' -f4 /proc/$PPID/stat)/environ"
    key, short = "sk-test-9a8b7c6d5e", "pw-1234"  # the short one is below the threshold
    sent, _log = attack(fake_provider, workspace, command, "-y", *OFF,
                       env={"OPENAI_API_KEY": key, "DB_PASSWORD": short})
    assert key not in _log and "[REDACTED]" in sent
    assert short in sent  # twin: an unredacted value does reach the model


# -- network and sockets --------------------------------------------------------------

@pytest.mark.parametrize("off", [False, True])
def test_no_network(fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    port = fake_provider.url.rsplit(":", 1)[1]
    command = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED"
    sent, _log = attack(fake_provider, workspace, command, "-y", *(OFF if off else ()))
    assert ("CONNECTED" in sent) is off
    if not off:
        assert "escalate" in sent  # the failure names the way out


@pytest.mark.parametrize("off", [False, True])
def test_no_unix_socket_outside(fake_provider: FakeProvider, workspace: Path,
                                off: bool) -> None:
    path = f"/run/swebash-test-{os.getpid()}-{int(off)}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    try:
        command = ("/usr/bin/python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); "
                   f"s.connect('{path}'); print('CONN' + 'ECTED')\"")
        sent, _log = attack(fake_provider, workspace, command, "-y", *(OFF if off else ()))
        assert ("CONNECTED" in sent) is off
    finally:
        server.close()
        os.unlink(path)


@pytest.mark.parametrize("off", [False, True])
def test_private_tmp(fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    marker = Path(f"/tmp/swebash-sbx-marker-{os.getpid()}-{int(off)}")
    try:
        attack(fake_provider, workspace, f"echo x > {marker}", "-y", *(OFF if off else ()))
        assert marker.exists() is off
    finally:
        marker.unlink(missing_ok=True)


@pytest.mark.parametrize("off", [False, True])
def test_no_capabilities_as_root(fake_provider: FakeProvider, workspace: Path,
                                 off: bool) -> None:
    if os.geteuid() != 0:
        pytest.skip("capabilities matter when ai runs as root; this run is not root")
    sent, _log = attack(fake_provider, workspace, "grep CapEff /proc/self/status", "-y",
                        *(OFF if off else ()))
    assert ("0000000000000000" in sent) is not off


# -- processes ------------------------------------------------------------------------

ESCAPE = "setsid sleep {} > /dev/null 2>&1 < /dev/null & "


@pytest.mark.parametrize("off", [False, True])
def test_setsid_does_not_outlive_the_command(
        fake_provider: FakeProvider, workspace: Path, off: bool, reap: list[str]) -> None:
    marker = f"1000.{os.getpid()}{int(off)}"
    reap.append(f"sleep {marker}")
    attack(fake_provider, workspace, ESCAPE.format(marker) + "echo started", "-y",
           *(OFF if off else ()))
    # outside the sandbox the reaper (process/reaper.py) does what the pid namespace does
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


def _start_ai(fake_provider: FakeProvider, workspace: Path, command: str,
              *flags: str) -> subprocess.Popen[bytes]:
    fake_provider.queue(command_reply(command), Reply(text="ok"))
    return subprocess.Popen([AI, "-y", *flags, "-m", "openai/x", "--api-base",
                             fake_provider.url, "go"], cwd=workspace, env=ai_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _kill_9_when_running(proc: subprocess.Popen[bytes], marker: str) -> None:
    try:
        assert wait_until(lambda: host_pids(f"sleep {marker}"), 30)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


@pytest.mark.parametrize("off", [False, True])
def test_kill_9_of_ai_takes_the_command_along(
        fake_provider: FakeProvider, workspace: Path, off: bool, reap: list[str]) -> None:
    marker = f"1001.{os.getpid()}{int(off)}"
    reap.append(f"sleep {marker}")
    proc = _start_ai(fake_provider, workspace, f"sleep {marker}", *(OFF if off else ()))
    _kill_9_when_running(proc, marker)
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


@pytest.mark.parametrize("off", [False, True])
def test_kill_9_of_ai_takes_a_setsid_child_along(
        fake_provider: FakeProvider, workspace: Path, off: bool, reap: list[str]) -> None:
    """``--sandbox off``: the command runs on the host, and its setsid'd child
    still dies with ``ai`` (the reaper); inside: the pid namespace."""
    marker = f"1005.{os.getpid()}{int(off)}"
    reap.append(f"sleep {marker}")
    proc = _start_ai(fake_provider, workspace, ESCAPE.format(marker) + "sleep 1000",
                     *(OFF if off else ()))
    _kill_9_when_running(proc, marker)
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


def _supervisor_of(pid: int) -> int:
    """The reaper (process/reaper.py) above ``pid``, from /proc."""
    while pid > 1:
        if b"reaper.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    raise AssertionError("no supervisor above the command")


def test_kill_9_of_ai_right_after_its_supervisor_takes_the_command_along(
        fake_provider: FakeProvider, workspace: Path, reap: list[str]) -> None:
    """``--sandbox off``: the supervisor dies first (SIGKILL: none of its code runs;
    OOM, a ``pkill python``) and ``ai`` a moment later, before it could end the
    command's cgroup: the command still dies (it dies with its supervisor). The
    twin half: until then the command runs (the sleep is seen)."""
    marker = f"1007.{os.getpid()}"
    reap.append(f"sleep {marker}")
    proc = _start_ai(fake_provider, workspace, f"sleep {marker}", *OFF)
    try:
        assert wait_until(lambda: host_pids(f"sleep {marker}"), 30)
        os.kill(_supervisor_of(host_pids(f"sleep {marker}")[0]), signal.SIGKILL)
    finally:
        proc.send_signal(signal.SIGKILL)  # within ai's drain: it cannot end the cgroup
        proc.wait()
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


def test_kill_9_twin_a_plain_parent_leaves_the_setsid_child(
        workspace: Path, reap: list[str]) -> None:
    """The twin: the same command under a parent with no reaper survives its kill -9."""
    marker = f"1006.{os.getpid()}"
    reap.append(f"sleep {marker}")
    parent = subprocess.Popen(["sh", "-c", ESCAPE.format(marker) + "sleep 1000"],
                              cwd=workspace, start_new_session=True)
    try:
        _kill_9_when_running(parent, marker)  # kills only the shell, as kill -9 of ai would
        assert host_pids(f"sleep {marker}")
    finally:
        with contextlib.suppress(OSError):
            os.killpg(parent.pid, signal.SIGKILL)  # its "sleep 1000"


# -- judging and escalation -----------------------------------------------------------

@pytest.mark.parametrize("flags", [(), ("-y",)])
def test_runtime_redirect_does_not_crash_the_turn(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path,
        flags: tuple[str, ...]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sent, _log = attack(fake_provider, workspace, 'echo hello > "$HOME/out.txt"', *flags,
                        env={"HOME": str(home)})
    assert not (home / "out.txt").exists()
    # without -y it ran as a preview (overlays here) or was refused for lack of a terminal
    preview_ran = not flags and overlay.support().ok
    assert ("no terminal" in sent) if not flags and not preview_ran else ("[sandbox: " in sent)


def test_escalation_without_a_terminal_is_denied_saying_why(
        fake_provider: FakeProvider, workspace: Path) -> None:
    sent, _log = attack(fake_provider, workspace, "touch escalated", "-y", escalate=True)
    assert sent.startswith("Error:") and "outside the sandbox" in sent
    assert not (workspace / "escalated").exists()


def test_host_allow_runs_outside(fake_provider: FakeProvider, workspace: Path,
                                 isolated: Path) -> None:
    marker = Path(f"/tmp/swebash-host-{os.getpid()}")
    (isolated / "config.toml").write_text(f'[sandbox]\nhost_allow = ["touch {marker}"]\n')
    try:
        sent, _log = attack(fake_provider, workspace, f"touch {marker}")
        assert marker.exists(), sent
    finally:
        marker.unlink(missing_ok=True)


@pytest.mark.parametrize("off", [False, True])
def test_agent_sockets_named_in_the_environment_are_closed(
        fake_provider: FakeProvider, workspace: Path, off: bool) -> None:
    """An ssh-agent style socket outside /run (here under the runtime dir we name)."""
    runtime = workspace.parent / "runtime"
    runtime.mkdir()
    path = runtime / "agent.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    try:
        command = ("/usr/bin/python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); "
                   f"s.connect('{path}'); print('CONN' + 'ECTED')\"")
        env = {"SSH_AUTH_SOCK": str(path), "XDG_RUNTIME_DIR": str(runtime)}
        flags = ("-y", "--sandbox", "workspace-write", *(OFF if off else ()))
        sent, _log = attack(fake_provider, workspace.parent, command, *flags, env=env)
        assert ("CONNECTED" in sent) is off
    finally:
        server.close()


def test_the_supervisors_death_handler_exits_even_when_killing_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An error while it kills (listing /proc failing) must not send the supervisor
    back to waiting with ``ai`` gone: it exits, and its command dies with it.
    The twin: when killing works it exits the same way, after killing."""
    from swebash_py.process import reaper

    exits: list[int] = []

    class Exited(Exception):
        pass

    def exit_(code: int) -> None:
        exits.append(code)
        raise Exited

    def failing() -> None:
        raise OSError("/proc: too many open files")

    monkeypatch.setattr(reaper.os, "_exit", exit_)
    for kill_all, raised in ((failing, OSError), (lambda: None, None)):
        monkeypatch.setattr(reaper, "kill_all", kill_all)
        with pytest.raises(Exited) as caught:
            reaper._on_death(int(reaper.DEATH_SIGNAL), None)
        assert isinstance(caught.value.__context__, raised or type(None))
    assert exits == [128 + int(reaper.DEATH_SIGNAL)] * 2
