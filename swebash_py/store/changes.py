"""The file_changes table: checkpoints of file contents per turn (see schema v4).

A mixin of ``Store``: it uses the store's one connection and its short
write transactions.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from swebash_py.checkpoints.model import FileChange, FileState, StoredChange

_COLUMNS = ("c.id, c.turn_id, t.seq, c.path, c.tool, c.before, c.before_mode, c.after,"
            " c.after_mode, c.reverted, c.before_meta, c.after_meta")


@dataclass(frozen=True)
class TurnRef:
    """A turn as undo and rewind name it."""

    id: int
    seq: int
    user_text: str


class FileChangesMixin:
    """Recording and reading file changes; mixed into ``Store``."""

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[Any]:
        raise NotImplementedError

    def _write_queued(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def record_change(self, turn_id: int, change: FileChange) -> int:
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO file_changes (turn_id, path, tool, before, before_mode, after,"
                " after_mode, created, before_meta, after_meta)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (turn_id, change.path, change.tool, change.before.data, change.before.mode,
                 change.after.data, change.after.mode, time.time(), _meta(change.before),
                 _meta(change.after)))
            return int(cur.lastrowid or 0)

    def drop_change(self, change_id: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM file_changes WHERE id = ?", (change_id,))

    def mark_reverted(self, change_ids: list[int]) -> None:
        with self._write() as db:
            db.executemany("UPDATE file_changes SET reverted = ? WHERE id = ?",
                           [(time.time(), i) for i in change_ids])

    def changes_since(self, session_id: str, first_seq: int) -> list[StoredChange]:
        """The live (not reverted, not rewound) changes of turns ``first_seq`` and later."""
        rows = self._read(
            f"SELECT {_COLUMNS} FROM file_changes c JOIN turns t ON t.id = c.turn_id"
            " WHERE t.session_id = ? AND t.seq >= ? AND t.rewound IS NULL"
            " AND c.reverted IS NULL ORDER BY c.id", (session_id, first_seq))
        return list(_stored(rows))

    def last_changed_turn(self, session_id: str) -> TurnRef | None:
        """The latest live turn with file changes not yet reverted."""
        rows = self._read(
            "SELECT t.id, t.seq, t.user_text FROM turns t WHERE t.session_id = ?"
            " AND t.rewound IS NULL AND EXISTS (SELECT 1 FROM file_changes c"
            " WHERE c.turn_id = t.id AND c.reverted IS NULL) ORDER BY t.seq DESC LIMIT 1",
            (session_id,))
        return TurnRef(int(rows[0][0]), int(rows[0][1]), str(rows[0][2])) if rows else None

    def live_turns(self, session_id: str) -> list[TurnRef]:
        """The turns still part of the conversation, in order."""
        rows = self._read("SELECT id, seq, user_text FROM turns WHERE session_id = ?"
                          " AND rewound IS NULL ORDER BY seq", (session_id,))
        return [TurnRef(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    def turns_ran_commands(self, session_id: str, first_seq: int, last_seq: int) -> bool:
        """Whether any of these turns called a tool that runs commands (``run_command``,
        by its ``command_arg`` trait), whose changes are not tracked."""
        from swebash_py.tools.registry import builtin_traits  # the catalog: no tool module

        runners = [t.name for t in builtin_traits().values() if t.command_arg is not None]
        rows = self._read(
            "SELECT 1 FROM turn_blocks b JOIN turns t ON t.id = b.turn_id"
            " WHERE t.session_id = ? AND t.seq BETWEEN ? AND ? AND t.rewound IS NULL"
            " AND b.block_type = 'tool_use' AND json_extract(b.json, '$.name') IN"
            f" ({', '.join('?' * len(runners))}) LIMIT 1",
            (session_id, first_seq, last_seq, *runners))
        return bool(rows)

    def mark_rewound(self, session_id: str, first_seq: int) -> int:
        """Take turns ``first_seq`` and later out of the conversation; returns how many."""
        now = time.time()
        with self._write_queued() as db:  # a rewind is a later fact: it goes up too
            count = db.execute("UPDATE turns SET rewound = ? WHERE session_id = ? AND seq >= ?"
                               " AND rewound IS NULL", (now, session_id, first_seq)).rowcount
            db.execute("INSERT INTO outbox (kind, uid) SELECT 'rewind', uid FROM turns"
                       " WHERE session_id = ? AND seq >= ? AND rewound = ? ORDER BY seq",
                       (session_id, first_seq, now))
            return count


def _stored(rows: list[Any]) -> Iterator[StoredChange]:
    from swebash_py.checkpoints.model import FileChange, FileState, StoredChange  # undo reads them

    for r in rows:
        change = FileChange(str(r[3]), str(r[4]), FileState.from_row(_bytes(r[5]), r[6], r[10]),
                            FileState.from_row(_bytes(r[7]), r[8], r[11]))
        yield StoredChange(int(r[0]), int(r[1]), int(r[2]), change, r[9] is not None)


def _meta(state: FileState) -> str | None:
    meta = state.meta()
    return None if meta is None else json.dumps(meta)


def _bytes(value: object) -> bytes | None:
    """A BLOB column (sqlite3 gives ``bytes``); NULL is None."""
    return value if isinstance(value, bytes) else None
