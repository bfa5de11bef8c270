"""The full integrity check runs when the database is not the file we last saw
sound (changed by anyone else, or never checked), and not again after our own
writes; its twin: an unchanged file is not read in full."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from swebash_py.store import soundness
from swebash_py.store.faults import DamagedDatabase
from swebash_py.store.sessions import Store


def _checks_run(db: Path) -> list[str]:
    statements: list[str] = []
    conn = sqlite3.connect(db)
    conn.set_trace_callback(statements.append)
    try:
        soundness.verify(conn, db)
    finally:
        conn.close()
    return [s for s in statements if "_check" in s]


def _stored(tmp_path: Path) -> Path:
    db = tmp_path / "sessions.db"
    with Store(db) as store:
        store.finish_turn(store.begin_turn(store.create_session("m", "/w"), "q"), "stop")
    return db


def test_a_file_changed_by_another_program_is_checked_in_full(tmp_path: Path) -> None:
    db = _stored(tmp_path)
    with sqlite3.connect(db) as other:
        other.execute("UPDATE sessions SET title = 'changed elsewhere'")
    assert _checks_run(db) == ["PRAGMA integrity_check(5)"]
    assert _checks_run(db) == ["PRAGMA quick_check(5)"]  # now recorded as sound


def test_twin_our_own_writes_need_no_full_check(tmp_path: Path) -> None:
    db = _stored(tmp_path)
    with Store(db) as store:
        store.set_title(store.list_sessions()[0].id, "ours")
    assert _checks_run(db) == ["PRAGMA quick_check(5)"]


def test_never_checked_means_checked(tmp_path: Path) -> None:
    db = _stored(tmp_path)
    (tmp_path / "sessions.db.sound").unlink()
    assert _checks_run(db) == ["PRAGMA integrity_check(5)"]


def test_an_index_that_no_longer_matches_its_table_is_damage(tmp_path: Path) -> None:
    db = _stored(tmp_path)
    with sqlite3.connect(db) as conn:  # the index holds cwd, its definition says title
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = replace(sql, 'cwd, updated DESC', "
                     "'title, updated DESC') WHERE name = 'sessions_cwd'")
    conn = sqlite3.connect(db)
    try:
        with pytest.raises(DamagedDatabase, match="damaged"):
            soundness.verify(conn, db)
    finally:
        conn.close()
