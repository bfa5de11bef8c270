"""Migrations: from an empty database and from the previous (v1) schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from swebash_py.store import Store
from swebash_py.store.schema import SCHEMA_VERSION, V1, V2, migrate


def columns(db: Path, table: str) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def test_empty_database_gets_the_current_schema(tmp_path: Path) -> None:
    db = tmp_path / "new" / "sessions.db"
    Store(db).close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"input_tokens", "output_tokens", "cost", "stop_reason"} <= columns(db, "turns")
    assert {"turn_id", "block_seq", "messages"} <= columns(db, "checkpoints")
    assert {"turn_id", "path", "before", "before_mode", "after", "reverted"} <= columns(
        db, "file_changes")
    assert "rewound" in columns(db, "turns")
    Store(db).close()  # opening again is a no-op


def test_v1_database_is_upgraded_and_keeps_its_data(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.executescript(V1 + "PRAGMA user_version = 1;")
    conn.executescript("""
        INSERT INTO sessions VALUES ('abcd1234', 'old one', 1.0, 2.0, 'gpt-4o', '/w');
        INSERT INTO turns (id, session_id, seq, user_text, created, completed, stop_reason)
            VALUES (1, 'abcd1234', 1, 'hello', 1.0, 2.0, 'stop');
        INSERT INTO turn_blocks (turn_id, seq, block_type, text, json, created)
            VALUES (1, 1, 'text', 'hi there', NULL, 1.5);
    """)
    conn.close()
    assert "input_tokens" not in columns(db, "turns")

    with Store(db) as store:
        info = store.get_session("abcd")  # the old id still finds it
        assert info is not None and info.title == "old one" and info.turns == 1
        sid = info.id  # now a global id
        assert [m.text for m in store.load_messages(sid)] == ["hello", "hi there"]
        turn = store.begin_turn(sid, "more")
        store.finish_turn(turn, "stop", 100, 50, 0.5)
        usage = store.session_usage(sid)
        assert (usage.turns, usage.input_tokens, usage.cost) == (2, 100, 0.5)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_migrate_stops_at_target_and_resumes(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    conn = sqlite3.connect(db, isolation_level=None)
    migrate(conn, target=1)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "cost" not in columns(db, "turns")
    migrate(conn)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_previous_schema_v2_is_upgraded_and_keeps_its_data(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.executescript(V1 + V2 + "PRAGMA user_version = 2;")
    conn.executescript("""
        INSERT INTO sessions VALUES ('feed0001', 'v2 one', 1.0, 2.0, 'gpt-4o', '/w');
        INSERT INTO turns (id, session_id, seq, user_text, created, input_tokens)
            VALUES (1, 'feed0001', 1, 'question', 1.0, 42);
        INSERT INTO turn_blocks (turn_id, seq, block_type, text, json, created)
            VALUES (1, 1, 'text', 'answer', NULL, 1.5);
    """)
    conn.close()
    assert "turn_id" not in columns(db, "checkpoints")
    with Store(db) as store:
        sid = store.resolve("feed0001")
        assert sid is not None
        assert [m.text for m in store.load_messages(sid)] == ["question", "answer"]
        assert store.session_usage(sid).input_tokens == 42
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert "block_seq" in columns(db, "checkpoints")
