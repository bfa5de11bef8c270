"""Storage faults through the installed `ai`: each is one `ai: ...` line that
says what to do, never a traceback, and nothing already stored is lost."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from swebash_py.store.faults import health_check
from swebash_py.store.schema import SCHEMA_VERSION
from tests.e2e.conftest import run_ai
from tests.e2e.crashkit import start_ai, wait_until
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def _ask(fp: FakeProvider, *extra: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return run_ai("-m", "openai/x", "--api-base", fp.url, *extra, **kw)  # type: ignore[arg-type]


def _one_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert "Traceback" not in result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("ai: ")]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _home() -> Path:
    return Path(os.environ["SWEBASH_HOME"])


def _mount_tmpfs(where: Path, options: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")


@pytest.fixture
def tiny_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """SWEBASH_HOME on a real 512 KiB tmpfs."""
    home = tmp_path / "tiny"
    _mount_tmpfs(home, "size=512k")
    monkeypatch.setenv("SWEBASH_HOME", str(home))
    try:
        yield home
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)


def _fill(directory: Path) -> None:
    fd = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


@pytest.mark.parametrize("home", ["file", "/proc/nope"])
def test_an_unusable_data_dir_is_one_line(fake_provider: FakeProvider, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, home: str) -> None:
    if home == "file":
        (tmp_path / "afile").write_text("x")
        home = str(tmp_path / "afile")
    monkeypatch.setenv("SWEBASH_HOME", home)
    fake_provider.queue(Reply(text="hi"))
    _one_line(_ask(fake_provider, "hello"), home, "SWEBASH_HOME")
    _one_line(run_ai("sessions", "list"), home, "SWEBASH_HOME")


def test_a_read_only_data_dir_is_one_line(fake_provider: FakeProvider, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "ro"
    _mount_tmpfs(home, "ro,size=64k")  # root ignores chmod; a read-only mount it cannot
    monkeypatch.setenv("SWEBASH_HOME", str(home))
    try:
        _one_line(_ask(fake_provider, "hello"), str(home), "writable", "SWEBASH_HOME")
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)


def test_disk_full_mid_turn_says_what_was_kept(fake_provider: FakeProvider, tiny_home: Path,
                                               workspace: Path) -> None:
    fake_provider.queue(Reply(text="first answer"))
    assert _ask(fake_provider, "first question", cwd=workspace).returncode == 0
    assert not [p for p in tiny_home.rglob("*.tmp")]
    fake_provider.queue(Reply(text="second answer " * 200, chunk_size=50, delay=0.05))
    process = start_ai("-c", "-m", "openai/x", "--api-base", fake_provider.url,
                       "second question", cwd=workspace)
    fake_provider.wait_for_requests(2)  # the turn was begun: now the disk fills
    _fill(tiny_home)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 1
    assert b"second answer" in stdout  # the answer was shown
    result = subprocess.CompletedProcess([], 1, stdout.decode(), stderr.decode())
    _one_line(result, "disk is full", str(tiny_home))
    (tiny_home / "filler").unlink()
    shown = run_ai("sessions", "show", run_ai("sessions", "list").stdout.split()[0])
    assert "first answer" in shown.stdout and "second question" in shown.stdout


def test_a_failed_cache_write_leaves_no_temp_file(tiny_home: Path, fake_provider: FakeProvider,
                                                  workspace: Path) -> None:
    _fill(tiny_home)
    (tiny_home / "filler").write_bytes(b"x" * (os.path.getsize(tiny_home / "filler") - 65536))
    fake_provider.queue(Reply(text="hi"))
    _ask(fake_provider, "hello", cwd=workspace)
    assert [p.name for p in tiny_home.rglob("*tmp*")] == []


def _db() -> Path:
    return _home() / "sessions.db"


def _two_sessions(fp: FakeProvider, workspace: Path) -> None:
    fp.queue(Reply(text="one"), Reply(text="two"))
    assert _ask(fp, "first", cwd=workspace).returncode == 0
    assert _ask(fp, "second", cwd=workspace).returncode == 0


def test_a_database_that_is_not_one_is_moved_aside(fake_provider: FakeProvider,
                                                   workspace: Path) -> None:
    _home().mkdir(parents=True)
    garbage = os.urandom(8192)
    _db().write_bytes(garbage)
    listed = run_ai("sessions", "list")
    assert listed.returncode == 0 and "no sessions yet" in listed.stdout
    line = _one_line(listed, "damaged", "moved to")
    (moved,) = _home().glob("sessions.db.corrupt-*")
    assert str(moved) in line and moved.read_bytes() == garbage  # kept, byte for byte
    _two_sessions(fake_provider, workspace)
    assert len(list(_home().glob("sessions.db.corrupt-*"))) == 1


def test_a_damaged_page_is_found_and_moved_aside(fake_provider: FakeProvider,
                                                 workspace: Path) -> None:
    _two_sessions(fake_provider, workspace)
    conn = sqlite3.connect(_db())
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions_cwd'"
                        ).fetchone()[0]
    conn.close()
    data = bytearray(_db().read_bytes())
    data[(root - 1) * page + 8:(root - 1) * page + 64] = b"\xff" * 56  # an index page
    _db().write_bytes(bytes(data))
    assert health_check(_db())  # `ai doctor`'s check sees it
    fake_provider.queue(Reply(text="three"))
    result = _ask(fake_provider, "third", cwd=workspace)
    assert result.returncode == 0 and "three" in result.stdout
    _one_line(result, "damaged", "moved to")
    assert len(list(_home().glob("sessions.db.corrupt-*"))) == 1
    assert health_check(_db()) == []


def test_a_newer_database_is_refused_not_written(fake_provider: FakeProvider,
                                                 workspace: Path) -> None:
    _two_sessions(fake_provider, workspace)
    conn = sqlite3.connect(_db())
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = _db().read_bytes()
    fake_provider.queue(Reply(text="three"))
    _one_line(_ask(fake_provider, "third", cwd=workspace), "newer", "v99",
              f"v{SCHEMA_VERSION}", "upgrade")
    _one_line(run_ai("sessions", "list"), "newer")
    assert _db().read_bytes() == before
    assert any("newer" in p for p in health_check(_db()))


def test_the_session_deleted_mid_turn(fake_provider: FakeProvider, workspace: Path) -> None:
    wait = json.dumps({"command": "touch started && while [ ! -e go ]; do sleep 0.02; done"})
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "run_command", wait)]),
                        Reply(text="All done."))
    process = start_ai("-y", "-m", "openai/x", "--api-base", fake_provider.url, "wait",
                       cwd=workspace)
    wait_until("the command to start", (workspace / "started").exists)
    session_id = run_ai("sessions", "list").stdout.split()[0]
    assert run_ai("sessions", "delete", session_id).returncode == 0
    (workspace / "go").touch()
    stdout, stderr = process.communicate(timeout=60)
    assert b"All done." in stdout  # the turn finished
    result = subprocess.CompletedProcess([], 1, stdout.decode(), stderr.decode())
    _one_line(result, "deleted while in use")
    assert process.returncode == 1
    assert "no sessions yet" in run_ai("sessions", "list").stdout


def test_a_broken_approvals_file_is_named_once(fake_provider: FakeProvider,
                                               workspace: Path) -> None:
    _home().mkdir(parents=True)
    (_home() / "approvals.json").write_text('{"/ws": ["web_search",]}')
    fake_provider.queue(Reply(text="fine"))
    result = _ask(fake_provider, "hello", cwd=workspace)
    assert result.returncode == 0 and "fine" in result.stdout
    assert result.stderr.count("approvals.json line 1 column") == 1, result.stderr
    assert (_home() / "approvals.json").read_text() == '{"/ws": ["web_search",]}'
