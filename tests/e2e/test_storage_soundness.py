"""Storage faults that used to pass without a word, through the installed `ai`:
a full disk stops the writes, never the reads; damage that ``quick_check``
does not see (an index entry whose key bytes changed) is found before anything
is written. Each with its twin: the sound database is written as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.e2e.conftest import run_ai
from tests.e2e.test_storage_faults import _ask, _fill, _home, _one_line, tiny_home
from tests.fakeprovider import FakeProvider, Reply

__all__ = ["tiny_home"]  # the fixture, shared


def test_a_full_disk_still_lists_and_shows_sessions(fake_provider: FakeProvider,
                                                   tiny_home: Path, workspace: Path) -> None:
    fake_provider.queue(Reply(text="stored answer"))
    assert _ask(fake_provider, "first question", cwd=workspace).returncode == 0
    _fill(tiny_home)
    listed = run_ai("sessions", "list")
    assert listed.returncode == 0 and "first question" in listed.stdout, listed.stderr
    shown = run_ai("sessions", "show", listed.stdout.split()[0])
    assert shown.returncode == 0 and "stored answer" in shown.stdout, shown.stderr
    fake_provider.queue(Reply(text="not kept"))
    _one_line(_ask(fake_provider, "second question", cwd=workspace), "disk is full")
    # the twin: with space again, the next question is stored
    (tiny_home / "filler").unlink()
    fake_provider.queue(Reply(text="kept"))
    assert _ask(fake_provider, "third question", cwd=workspace).returncode == 0
    assert "third question" in run_ai("sessions", "list").stdout


def _db() -> Path:
    return _home() / "sessions.db"


def _change_an_index_key(db: Path, workspace: Path) -> None:
    """Change one byte of the workspace's path in the ``sessions_cwd`` index:
    every page stays well formed, the index no longer matches its table."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions_cwd'"
                        ).fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    key = str(workspace).encode()
    at = data.rfind(key, (root - 1) * page, root * page) + len(key) - 1
    data[at] = data[at] ^ 1
    db.write_bytes(bytes(data))


def _checks(db: Path) -> tuple[list[str], list[str]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return ([r[0] for r in conn.execute("PRAGMA quick_check")],
                [r[0] for r in conn.execute("PRAGMA integrity_check")])
    finally:
        conn.close()


def test_damage_quick_check_misses_is_found_before_a_write(fake_provider: FakeProvider,
                                                           workspace: Path) -> None:
    fake_provider.queue(Reply(text="one"), Reply(text="two"))
    assert _ask(fake_provider, "first", cwd=workspace).returncode == 0
    assert _ask(fake_provider, "second", cwd=workspace).returncode == 0
    _change_an_index_key(_db(), workspace)
    quick, full = _checks(_db())
    assert quick == ["ok"] and full != ["ok"]  # the damage the old check let through
    damaged = _db().read_bytes()
    fake_provider.queue(Reply(text="three"))
    result = _ask(fake_provider, "third", cwd=workspace)
    assert result.returncode == 0 and "three" in result.stdout
    _one_line(result, "damaged", "moved to")
    (moved,) = _home().glob("sessions.db.corrupt-*")
    assert moved.read_bytes() == damaged  # not written into
    assert _checks(_db()) == (["ok"], ["ok"])


def test_twin_the_sound_database_is_written(fake_provider: FakeProvider,
                                            workspace: Path) -> None:
    fake_provider.queue(Reply(text="one"), Reply(text="two"))
    assert _ask(fake_provider, "first", cwd=workspace).returncode == 0
    result = _ask(fake_provider, "second", cwd=workspace)
    assert result.returncode == 0 and "ai: " not in result.stderr
    assert not list(_home().glob("sessions.db.corrupt-*"))
    listed = run_ai("sessions", "list").stdout
    assert "first" in listed and "second" in listed
