"""Records for the team store, kept locally: audit rows, another host's turns.

A mixin of ``Store`` (like ``changes.FileChangesMixin``): it uses the store's
one connection and its short write transactions. ``queue`` puts a record in
the ``outbox`` (see schema v5) inside the transaction that wrote it.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import Any

from swebash_py.store.ids import uuid7
from swebash_py.store.records import make_title

AUDIT_COLUMNS = ("time", "session_id", "turn_uid", "cwd", "tool", "command", "decision",
                 "allowed", "exit_code", "duration_ms", "output_sha256", "output_length",
                 "output", "description")


def queue(db: sqlite3.Connection, kind: str, uid: str) -> None:
    db.execute("INSERT INTO outbox (kind, uid) VALUES (?, ?)", (kind, uid))


def queue_select(db: sqlite3.Connection, kind: str, sql: str, args: tuple[object, ...]) -> None:
    row = db.execute(sql, args).fetchone()
    if row and row[0]:
        queue(db, kind, str(row[0]))


class TeamRecordsMixin:
    """Audit rows and merged remote sessions; mixed into ``Store``."""

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _write_queued(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[Any]:
        raise NotImplementedError

    def turn_uid(self, turn_id: int) -> str | None:
        rows = self._read("SELECT uid FROM turns WHERE id = ?", (turn_id,))
        return str(rows[0][0]) if rows and rows[0][0] else None

    def add_audit(self, row: dict[str, Any]) -> str:
        """Record one tool call's audit row (see ``team.audit``); returns its id."""
        uid = uuid7(row.get("time"))
        cols = ["uid", *AUDIT_COLUMNS]
        values = [uid, *(row.get(c) for c in AUDIT_COLUMNS)]
        with self._write_queued() as db:
            db.execute(f"INSERT INTO audit ({', '.join(cols)})"
                       f" VALUES ({', '.join('?' for _ in cols)})", values)
            queue(db, "audit", uid)
        return uid

    def audit_rows(self, since: float | None = None) -> list[dict[str, Any]]:
        """This host's audit rows, oldest first (``since``: unix seconds)."""
        cols = ["uid", *AUDIT_COLUMNS]
        rows = self._read(f"SELECT {', '.join(cols)} FROM audit WHERE time >= ?"
                          " ORDER BY time, uid", (since or 0.0,))
        return [dict(zip(cols, r, strict=True)) for r in rows]

    def merge_remote(self, session: Any, turns: list[Any]) -> int:
        """Copy another host's records of a session (``team.reads``) in, as theirs
        (``host_id`` set, never queued for upload); records already here are
        skipped. Returns how many turns were new."""
        new = 0
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO sessions (id, title, created, updated, model, cwd,"
                       " host_id, hostname, os_user) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (session.id, session.title and make_title(session.title),
                        session.created, session.updated, session.model, session.cwd,
                        session.host_id, session.hostname, session.os_user))
            for turn in turns:
                if db.execute("SELECT 1 FROM turns WHERE uid = ?", (turn.id,)).fetchone():
                    if turn.rewound is not None:  # rewound elsewhere since: so here too
                        db.execute("UPDATE turns SET rewound = COALESCE(rewound, ?)"
                                   " WHERE uid = ?", (turn.rewound, turn.id))
                    continue
                new += 1
                cur = db.execute(
                    "INSERT INTO turns (session_id, seq, user_text, created, completed,"
                    " stop_reason, input_tokens, output_tokens, cost, uid, host_id, rewound)"
                    " SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
                    " FROM turns WHERE session_id = ?",
                    (session.id, turn.user_text, turn.created, turn.completed, turn.stop_reason,
                     turn.input_tokens, turn.output_tokens, turn.cost, turn.id, turn.host_id,
                     turn.rewound, session.id))
                db.executemany(
                    "INSERT OR IGNORE INTO turn_blocks (turn_id, seq, block_type, text, json,"
                    " created, uid, host_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(cur.lastrowid, b["seq"], b["type"], b["text"], b["json"], b["created"],
                      b["id"], turn.host_id) for b in turn.blocks])
            db.execute("UPDATE sessions SET updated = MAX(updated, ?) WHERE id = ?",
                       (max([session.updated, *(t.created for t in turns)]), session.id))
        return new

    def session_ids(self) -> list[str]:
        """Every local session id (for prefixes unique among them)."""
        return [str(r[0]) for r in self._read("SELECT id FROM sessions")]
