"""A preview is not weaker than the plain sandbox: the contract's Sandbox list,
point by point, for a command run as a preview (same bwrap command line,
inside our namespace). Each check has a twin showing it can fail."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

from swebash_py.config.settings import Settings
from swebash_py.preview.run import Preview, run_preview
from swebash_py.sandbox.build import build_policy
from tests.preview.conftest import needs_overlay
from tests.sandbox.conftest import host_pids, wait_until

pytestmark = needs_overlay


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("HOME-SSH-KEY\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("SWEBASH_CONFIG", str(tmp_path / "config" / "config.toml"))
    monkeypatch.setenv("PREVIEW_TEST_API_KEY", "sk-preview-secret-value")
    workspace = tmp_path / "ws"
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("[core]\n")
    (workspace / ".env").write_text("DOTENV-SECRET\n")
    (workspace / "a.txt").write_text("a\n")
    return workspace


def children() -> list[str]:
    """Our own child processes (observable in /proc)."""
    mine = []
    for entry in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(os.getpid()):
            mine.append(entry)
    return mine


def preview(ws: Path, command: str, **extra: object) -> Preview:
    settings = Settings.from_data({"sandbox": extra} if extra else {})
    policy = build_policy(settings.sandbox, "write", ws)
    return asyncio.run(run_preview(["/bin/bash", "-c", command], policy, timeout=30))


def test_secret_paths_are_hidden(ws: Path) -> None:
    found = preview(ws, "cat ~/.ssh/id_rsa .env; echo x > .env; echo end")
    assert "HOME-SSH-KEY" not in found.result.output
    assert "DOTENV-SECRET" not in found.result.output
    assert not found.changed  # the masked .env could not be written
    assert (ws / ".env").read_text() == "DOTENV-SECRET\n"


def test_twin_a_plain_file_is_read_and_written(ws: Path) -> None:
    found = preview(ws, "cat a.txt; echo x >> a.txt")
    assert "a\n" in found.result.output and found.changed


def test_the_environment_is_rebuilt(ws: Path) -> None:
    found = preview(ws, "env; tr '\\0' '\\n' < /proc/1/environ")
    assert "sk-preview-secret-value" not in found.result.output
    assert "PREVIEW_TEST_API_KEY" not in found.result.output
    assert "HOME=" in found.result.output  # twin: allow-listed names do cross


def test_no_network(ws: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        found = preview(ws, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED")
        assert "CONNECTED" not in found.result.output
    finally:
        listener.close()


def test_tmp_is_private_and_the_upper_dir_unseen(ws: Path) -> None:
    marker = Path(f"/tmp/swebash-walls-marker-{os.getpid()}")
    marker.write_text("host tmp\n")
    try:
        found = preview(ws, f"ls -a /tmp; cat {marker}; ls -d /tmp/swebash-preview-* ; "
                        "echo scratch > /tmp/scratch")
        assert "host tmp" not in found.result.output
        assert "swebash-preview-" not in found.result.output.replace(
            "ls: cannot access '/tmp/swebash-preview-*'", "")
        assert not found.changed  # /tmp writes are the sandbox's own, not changes
    finally:
        marker.unlink()


def test_git_cannot_be_replaced_and_its_config_stays(ws: Path) -> None:
    found = preview(ws, "echo evil >> .git/config; echo x > .git/hooks/pre-commit; "
                    "mv .git moved; rm -rf .git; echo done")
    assert not found.changed or all(c.rel.startswith(".git/") and "config" not in c.rel
                                    and "hooks" not in c.rel for c in found.changes.changes)
    assert not any(c.rel in (".git", "moved") for c in found.changes.changes)


def test_project_settings_stay_in_a_preview(ws: Path) -> None:
    (ws / ".swebash").mkdir()
    (ws / ".swebash" / "config.toml").write_text("# project\n")
    found = preview(ws, "echo x > .swebash/config.toml; mv .swebash moved; echo y > b.txt")
    assert [c.rel for c in found.changes.changes] == ["b.txt"]  # the rest of ws is writable


def test_no_capabilities_and_no_unmount(ws: Path) -> None:
    found = preview(ws, f"grep CapEff /proc/self/status; umount -l {ws}; umount {ws}; "
                    "echo x >> a.txt")
    assert "CapEff:\t0000000000000000" in found.result.output
    assert [c.rel for c in found.changes.changes] == ["a.txt"]  # still the overlay
    assert (ws / "a.txt").read_text() == "a\n"


def test_no_inherited_descriptors(ws: Path) -> None:
    """The handshake pipes are closed before bwrap: only 0, 1, 2 (and ls's own)."""
    found = preview(ws, "ls /proc/self/fd")
    fds = sorted(int(x) for x in found.result.output.split() if x.isdigit())
    assert fds[:3] == [0, 1, 2] and len(fds) <= 4


def test_nothing_keeps_running(ws: Path) -> None:
    marker = f"1000.{os.getpid()}7"
    preview(ws, f"setsid sleep {marker} > /dev/null 2>&1 < /dev/null & echo started")
    assert wait_until(lambda: not host_pids(f"sleep {marker}"))


@pytest.mark.parametrize("command", ["echo x >> a.txt", "echo x >> a.txt; sleep 30"],
                         ids=["ends", "times-out"])
def test_the_overlay_is_gone_however_the_preview_ends(ws: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      command: str) -> None:
    from swebash_py.sandbox import overlay

    parent = tmp_path / "mounts"
    parent.mkdir()
    monkeypatch.setattr(overlay, "tmpfs_parent", lambda: str(parent))
    policy = build_policy(Settings().sandbox, "write", ws)
    found = asyncio.run(run_preview(["/bin/bash", "-c", command], policy, timeout=1))
    assert found.changed  # caught, even when it timed out
    assert list(parent.iterdir()) == []  # the host mount point is gone already
    fd = found._fd
    found.discard()
    with pytest.raises(OSError):
        os.fstat(fd)  # the tmpfs's last reference is closed: the kernel frees it


def test_cancelled_while_running_leaves_nothing(ws: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from swebash_py.sandbox import overlay

    parent = tmp_path / "mounts"
    parent.mkdir()
    monkeypatch.setattr(overlay, "tmpfs_parent", lambda: str(parent))
    policy = build_policy(Settings().sandbox, "write", ws)
    before = set(os.listdir("/proc/self/fd"))

    async def cancel_it() -> None:
        started = asyncio.Event()
        task = asyncio.create_task(run_preview(
            ["/bin/bash", "-c", "echo x > f; echo started; sleep 30"], policy, timeout=60,
            on_output=lambda text: started.set() if "started" in text else None))
        await asyncio.wait_for(started.wait(), 30)  # it runs, in its overlay
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(500):  # the killed child is reaped while the loop still runs
            if not children():
                break
            await asyncio.sleep(0.02)

    asyncio.run(cancel_it())
    assert list(parent.iterdir()) == []
    assert set(os.listdir("/proc/self/fd")) <= before  # no overlay descriptor held


# -- bounded in files too; settings never applied ----------------------------------------

MANY_FILES = """python3 -c '
made = 0
for i in range({n}):
    try:
        open(f"f{{i}}", "w").close()
        made += 1
    except OSError:
        pass
print("made", made)'"""


def _mounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from swebash_py.sandbox import overlay

    parent = tmp_path / "mounts"
    parent.mkdir()
    monkeypatch.setattr(overlay, "tmpfs_parent", lambda: str(parent))
    return parent


def test_200k_empty_files_stop_the_preview(ws: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty files cost no bytes, so only the file bound (``nr_inodes``, in
    proportion to ``preview_max_mb``, default 1024) stops them: nothing is
    applied, the message names ``preview_max_mb``, the overlay is removed."""
    from swebash_py.preview.flow import bound_message
    from swebash_py.sandbox.overlay import INODES_PER_MB

    parent = _mounts(tmp_path, monkeypatch)
    before = sorted(p.name for p in ws.iterdir())
    found = preview(ws, MANY_FILES.format(n=200_000))
    made = int(found.result.output.split("made", 1)[1].split()[0])
    assert made < 1024 * INODES_PER_MB < 200_000  # the kernel held the bound
    assert found.over_bound
    assert "preview_max_mb = 1024" in bound_message(found.max_mb)
    with pytest.raises(Exception, match="preview_max_mb = 1024"):
        found.apply()
    assert sorted(p.name for p in ws.iterdir()) == before  # nothing applied
    assert list(parent.iterdir()) == []
    with pytest.raises(OSError):
        os.fstat(found._fd)  # apply refused, and the overlay is freed


def test_twin_a_preview_of_100_files_applies(ws: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    parent = _mounts(tmp_path, monkeypatch)
    found = preview(ws, MANY_FILES.format(n=100))
    assert "made 100" in found.result.output and not found.over_bound
    found.apply()
    assert all((ws / f"f{i}").is_file() for i in range(100))
    assert list(parent.iterdir()) == []


def test_settings_written_in_a_preview_are_never_applied(ws: Path) -> None:
    """New ``.swebash`` at the root and in ``app/`` (and our own config, were it in
    the workspace) are dropped from the change set and named; twin: the same
    command's ``notes/config.toml`` is applied."""
    (ws / "app").mkdir()
    found = preview(ws, "mkdir -p .swebash app/.swebash notes; "
                    "for d in .swebash app/.swebash notes; do echo x > $d/config.toml; done")
    assert sorted(c.rel for c in found.changes.changes) == ["notes", "notes/config.toml"]
    assert {p.relative_to(ws).as_posix() for p in found.changes.refused} >= {
        ".swebash", "app/.swebash"}
    found.apply()
    assert (ws / "notes" / "config.toml").read_text() == "x\n"
    assert not (ws / ".swebash").exists() and not (ws / "app" / ".swebash").exists()


def test_our_config_in_the_workspace_is_never_applied(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``$SWEBASH_CONFIG`` inside the workspace and missing: a preview that creates
    it has that change dropped; twin: its other file applies."""
    monkeypatch.setenv("SWEBASH_CONFIG", str(ws / "ai.toml"))
    found = preview(ws, "echo '[hooks]' > ai.toml; echo y > b.txt")
    assert [c.rel for c in found.changes.changes] == ["b.txt"]
    assert found.changes.refused == [ws / "ai.toml"]
    found.apply()
    assert not (ws / "ai.toml").exists() and (ws / "b.txt").read_text() == "y\n"
