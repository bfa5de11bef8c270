"""Global ids (UUIDv7) and the migration that gives existing records one."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from swebash_py.store import Store
from swebash_py.store.ids import shortest_unique, uuid7
from swebash_py.store.schema import MIGRATIONS, V1, V2, V3


def test_uuid7_has_version_variant_and_time() -> None:
    value = uuid.UUID(uuid7(1_700_000_000.123))
    assert value.version == 7 and value.variant == uuid.RFC_4122
    assert value.int >> 80 == 1_700_000_000_123


def test_uuid7_made_in_a_row_sort_in_the_order_made() -> None:
    ids = [uuid7() for _ in range(5000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_shortest_unique_prefixes() -> None:
    ids = ["01a2aaaa-0000", "01a2aaaa-1111", "01b30000-0000"]
    short = shortest_unique(ids)
    assert short == {"01a2aaaa-0000": "01a2aaaa-0", "01a2aaaa-1111": "01a2aaaa-1",
                     "01b30000-0000": "01b30000"}
    assert all(sum(o.startswith(p) for o in ids) == 1 for p in short.values())


def test_v3_database_gets_global_ids_and_keeps_every_link(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.executescript(V1 + V2 + V3 + "PRAGMA user_version = 3;")
    conn.executescript("""
        INSERT INTO sessions VALUES ('abcd1234', 'old', 1700000000.0, 1700000100.0, 'm', '/w');
        INSERT INTO turns (id, session_id, seq, user_text, created, completed, stop_reason)
            VALUES (1, 'abcd1234', 1, 'hello', 1700000001.0, 1700000002.0, 'stop');
        INSERT INTO turn_blocks (turn_id, seq, block_type, text, json, created)
            VALUES (1, 1, 'text', 'hi there', NULL, 1700000001.5);
        INSERT INTO checkpoints (session_id, turn_id, block_seq, messages, created)
            VALUES ('abcd1234', 1, 1, '[]', 1700000002.0);
    """)
    conn.close()
    with Store(db) as store:
        info = store.get_session("abcd1234")
        assert info is not None and uuid.UUID(info.id).version == 7
        assert uuid.UUID(info.id).int >> 80 == 1_700_000_000_000  # its own creation time
        assert store.get_session(info.id[:13]) == info
        assert [t.user_text for t in store.turns(info.id)] == ["hello"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("SELECT session_id FROM checkpoints").fetchone()[0] == info.id
        uids = [r[0] for r in conn.execute("SELECT uid FROM turns UNION ALL"
                                           " SELECT uid FROM turn_blocks")]
        assert len(uids) == 2 and all(uuid.UUID(u).version == 7 for u in uids)
        queued = conn.execute("SELECT kind FROM outbox ORDER BY seq").fetchall()
        assert [k for (k,) in queued] == ["session", "turn", "block", "outcome"]


def test_every_new_record_is_queued_in_the_same_write(tmp_path: Path) -> None:
    from swebash_py.engine.messages import TextBlock

    with Store(tmp_path / "s.db") as store:
        woken: list[int] = []
        store.on_queued = lambda: woken.append(1)
        sid = store.create_session("m", "/w")
        turn = store.begin_turn(sid, "q")
        store.add_block(turn, TextBlock("a"))
        store.finish_turn(turn, "stop")
        rows = store._read("SELECT kind FROM outbox ORDER BY seq")
    assert [k for (k,) in rows] == ["session", "turn", "block", "outcome"]
    assert len(woken) == 4


def test_a_session_id_is_found_whatever_its_case(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        sid = store.create_session("m", "/w")
        assert store.resolve(sid.upper()) == sid
        assert store.resolve(sid[:10].upper()) == sid
        assert store.resolve("ZZ") is None


def _insert_ids(store: Store, ids: list[str]) -> None:
    with store._write() as db:
        db.executemany("INSERT INTO sessions (id, created, updated) VALUES (?, 0, 0)",
                       [(i,) for i in ids])


def test_short_ids_from_neighbours_match_the_whole_list_and_resolve(tmp_path: Path) -> None:
    """The store's short ids (two neighbours by the primary key) are the ones a pass
    over every id gives, each unique and accepted by ``resolve``, for ids sharing
    prefixes of every length (same millisecond, same counter, made a year apart)."""
    base = "0190abcd-1234-7abc-8def-0123456789ab"
    ids = [base[:n] + ("f" if base[n] != "f" else "e") + base[n + 1:] for n in range(8, 36)
           if base[n] != "-"]
    ids += [base, uuid7(1_600_000_000), *(uuid7() for _ in range(200))]
    with Store(tmp_path / "s.db") as store:
        _insert_ids(store, ids)
        picked = [base, *ids[:5], ids[-1]]
        short = store.short_ids(picked)
        assert short == {i: shortest_unique(ids)[i] for i in picked}
        for full, prefix in short.items():
            assert sum(o.startswith(prefix) for o in ids) == 1
            assert store.resolve(prefix) == full
            assert store.resolve(prefix.upper()) == full


def test_the_twin_a_prefix_one_character_shorter_is_ambiguous(tmp_path: Path) -> None:
    """Where neighbours share a long prefix the short id had to be that long."""
    from swebash_py.store.sessions import AmbiguousSession

    ids = ["0190abcd-1234-7abc-8def-0123456789aa", "0190abcd-1234-7abc-8def-0123456789ab",
           "0190abcd-1234-7abc-8def-0123456789ac"]
    with Store(tmp_path / "s.db") as store:
        _insert_ids(store, ids)
        short = store.short_ids(ids)
        assert short[ids[1]] == ids[1]
        with pytest.raises(AmbiguousSession):
            store.resolve(short[ids[1]][:-1])
        assert store.resolve("0190abcd-9") is None
