"""``Store``: sessions, turns and their blocks in SQLite.

Every write is one short ``BEGIN IMMEDIATE`` transaction (so several ``ai``
processes can share the file: WAL mode, a 5 s busy timeout), and each block
is committed on its own as it completes: ``kill -9`` loses at most the block
in flight. Text is passed through :func:`redact` before it is written.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from swebash_py.engine.context import repair
from swebash_py.engine.messages import Block, ImageBlock, Message, Role, ToolResultBlock
from swebash_py.engine.secrets import redact
from swebash_py.errors import SessionGone, UsageError
from swebash_py.store import faults, soundness
from swebash_py.store.changes import FileChangesMixin
from swebash_py.store.faults import ensure_data_dir
from swebash_py.store.ids import unique_prefix, uuid7
from swebash_py.store.records import (
    BlockRecord,
    SessionInfo,
    SessionUsage,
    TurnRecord,
    block_to_row,
    in_request_order,
    make_title,
    messages_from_json,
    messages_to_json,
    parse_json,
)
from swebash_py.store.schema import connect, connect_read_only
from swebash_py.store.team_records import TeamRecordsMixin, queue, queue_select

_PREFIX = re.compile(r"^[0-9A-Za-z_-]+$")
_SESSION_COLUMNS = (
    "s.id, s.title, s.created, s.updated, s.model, s.cwd,"
    # turns taken back by /rewind are no longer part of the conversation: not counted
    " (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id AND t.rewound IS NULL)"
)


class AmbiguousSession(UsageError):
    """A session id prefix matches more than one session."""


def default_path() -> Path:
    from swebash_py.config.paths import data_dir

    return data_dir() / "sessions.db"


class Store(FileChangesMixin, TeamRecordsMixin):
    """The sessions database; safe to share between threads of one process."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.moved_aside: Path | None = None  # where a damaged database went
        self.full: faults.DiskFull | None = None  # set: opened for reading only
        self._conn = self._open()
        # closed (and remembered as sound) by ``close``, or at exit when a
        # command never closes its store
        self._finish = weakref.finalize(self, _close_and_record, self._conn, self.path,
                                        self.full is None)
        self._lock = threading.Lock()
        # Called after every commit that queued a record for upload (the
        # team store's uploader wakes up on it); must not block.
        self.on_queued: Callable[[], None] | None = None

    def _open(self) -> sqlite3.Connection:
        """Connect; a damaged database is moved aside and a new one started; on a
        full disk an existing one is opened for reading (writes then say why not)."""
        ensure_data_dir(self.path.parent)
        try:
            with faults.converted(self.path):
                return connect(self.path)
        except faults.DiskFull as full:
            if not self.path.exists():
                raise
            self.full = full
            with faults.converted(self.path):
                return connect_read_only(self.path)
        except faults.DamagedDatabase:
            if self.path.exists():
                self.moved_aside = faults.move_aside(self.path)
            with faults.converted(self.path):
                return connect(self.path)

    def close(self) -> None:
        """Close; the file as we leave it is remembered as sound (``soundness``),
        so the next start need not check it in full."""
        with self._lock:
            self._finish()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One committed transaction; sqlite3 / OS errors become ``StorageError``
        (a row whose session was deleted meanwhile: ``SessionGone``)."""
        with self._lock, faults.converted(self.path, "nothing after the last saved block "
                                                     "was kept"):
            if self.full is not None:
                raise self.full
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.IntegrityError) and "FOREIGN KEY" in str(exc):
                    raise SessionGone("this session was deleted while in use (`ai sessions "
                                      "delete`?): the rest of this turn was not saved") from exc
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def _write_queued(self) -> Iterator[sqlite3.Connection]:
        """A write that queues records in ``outbox``; wakes the uploader after."""
        with self._write() as db:
            yield db
        if self.on_queued is not None:
            self.on_queued()

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[Any]:
        with self._lock, faults.converted(self.path):
            return self._conn.execute(sql, args).fetchall()

    # ---------------------------------------------------------------- sessions
    def create_session(self, model: str | None, cwd: str | None,
                       title: str | None = None) -> str:
        """A new session; returns its id (a UUIDv7)."""
        now, sid = time.time(), uuid7()
        with self._write_queued() as db:
            db.execute("INSERT INTO sessions (id, title, created, updated, model, cwd)"
                       " VALUES (?, ?, ?, ?, ?, ?)",
                       (sid, title and make_title(title), now, now, model, cwd))
            queue(db, "session", sid)
        return sid

    def resolve(self, id_or_prefix: str) -> str | None:
        """The full id for an id or a unique prefix; None when nothing matches."""
        key = id_or_prefix.strip()
        if not key or not _PREFIX.match(key):
            return None
        rows = self._with_prefix(key)
        if not rows and key != key.lower():  # UUIDs are written in either case
            rows = self._with_prefix(key.lower())
        if not rows:  # an id from before global ids (kept by the migration)
            rows = self._read("SELECT id FROM sessions WHERE substr(legacy_id, 1, ?) = ?"
                              " LIMIT 2", (len(key), key))
        exact = [r for r in rows if r[0] in (key, key.lower())]
        if exact or len(rows) == 1:
            return str((exact or rows)[0][0])
        if rows:
            raise AmbiguousSession(f"session id {key!r} is ambiguous; give more characters")
        return None

    def _with_prefix(self, key: str) -> list[Any]:
        """At most two ids starting with ``key``: a range of the primary key (ids
        are ASCII, so every one starting with ``key`` sorts below ``key + DEL``)."""
        return self._read("SELECT id FROM sessions WHERE id >= ? AND id < ? LIMIT 2",
                          (key, key + "\x7f"))

    def short_ids(self, ids: list[str], minimum: int = 8) -> dict[str, str]:
        """The shortest prefix naming each of ``ids`` among every stored session:
        two neighbours each by the primary key, not a pass over every id (a list of
        20 rows costs the same with 50,000 sessions)."""
        out = {}
        for full in ids:
            row = self._read("SELECT (SELECT MAX(id) FROM sessions WHERE id < ?),"
                             " (SELECT MIN(id) FROM sessions WHERE id > ?)", (full, full))[0]
            out[full] = unique_prefix(full, [str(n) for n in row if n is not None], minimum)
        return out

    def get_session(self, id_or_prefix: str) -> SessionInfo | None:
        sid = self.resolve(id_or_prefix)
        if sid is None:
            return None
        rows = self._read(f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.id = ?", (sid,))
        return _info(rows[0]) if rows else None

    def list_sessions(self, limit: int = 20) -> list[SessionInfo]:
        """Newest first (by last activity)."""
        rows = self._read(f"SELECT {_SESSION_COLUMNS} FROM sessions s"
                          " ORDER BY s.updated DESC, s.rowid DESC LIMIT ?", (limit,))
        return [_info(r) for r in rows]

    def latest_session(self, cwd: str | None = None) -> str | None:
        """The most recently active session (in ``cwd`` when given)."""
        if cwd is None:
            rows = self._read("SELECT id FROM sessions ORDER BY updated DESC, rowid DESC LIMIT 1")
        else:
            rows = self._read("SELECT id FROM sessions WHERE cwd = ?"
                              " ORDER BY updated DESC, rowid DESC LIMIT 1", (cwd,))
        return str(rows[0][0]) if rows else None

    def delete_session(self, id_or_prefix: str) -> bool:
        sid = self.resolve(id_or_prefix)
        if sid is None:
            return False
        with self._write() as db:
            return db.execute("DELETE FROM sessions WHERE id = ?", (sid,)).rowcount > 0

    def set_title(self, session_id: str, title: str) -> None:
        with self._write() as db:
            db.execute("UPDATE sessions SET title = ? WHERE id = ?",
                       (make_title(redact(title)), session_id))

    def set_model(self, session_id: str, model: str) -> None:
        with self._write() as db:
            db.execute("UPDATE sessions SET model = ? WHERE id = ?", (model, session_id))

    # ---------------------------------------------------------------- turns
    def begin_turn(self, session_id: str, user_text: str) -> int:
        """Record the user's request; returns the turn id for ``add_block``."""
        now, text, uid = time.time(), redact(user_text), uuid7()
        with self._write_queued() as db:
            row = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE session_id = ?",
                             (session_id,)).fetchone()
            cur = db.execute("INSERT INTO turns (session_id, seq, user_text, created, uid)"
                             " VALUES (?, ?, ?, ?, ?)", (session_id, row[0], text, now, uid))
            queue(db, "turn", uid)
            db.execute("UPDATE sessions SET updated = ?, title = COALESCE(title, ?)"
                       " WHERE id = ?", (now, make_title(text), session_id))
            return int(cur.lastrowid or 0)

    def add_block(self, turn_id: int, block: Block, step: int | None = None) -> None:
        """Append one completed block to the turn (one committed write); ``step``
        is the request of the turn it belongs to (see ``in_request_order``)."""
        kind, text, meta = block_to_row(block, step)
        now, uid = time.time(), uuid7()
        with self._write_queued() as db:
            db.execute("INSERT INTO turn_blocks (turn_id, seq, block_type, text, json, created,"
                       " uid) SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM turn_blocks"
                       " WHERE turn_id = ?", (turn_id, kind, text, meta, now, uid, turn_id))
            queue(db, "block", uid)
            db.execute("UPDATE sessions SET updated = ? WHERE id ="
                       " (SELECT session_id FROM turns WHERE id = ?)", (now, turn_id))

    def finish_turn(self, turn_id: int, stop_reason: str, input_tokens: int = 0,
                    output_tokens: int = 0, cost: float | None = None,
                    cache_read_tokens: int = 0, cache_write_tokens: int = 0) -> None:
        with self._write_queued() as db:
            db.execute("UPDATE turns SET completed = ?, stop_reason = ?, input_tokens = ?,"
                       " output_tokens = ?, cost = ?, cache_read_tokens = ?,"
                       " cache_write_tokens = ? WHERE id = ?",
                       (time.time(), stop_reason, input_tokens, output_tokens, cost,
                        cache_read_tokens, cache_write_tokens, turn_id))
            queue_select(db, "outcome", "SELECT uid FROM turns WHERE id = ?", (turn_id,))

    # ---------------------------------------------------------------- reading
    def turns(self, session_id: str, from_seq: int = 0) -> list[TurnRecord]:
        """The whole transcript (from turn ``from_seq`` on): turns in order, each
        with its blocks in order."""
        rows = self._read(
            _TURN_ROWS +
            " WHERE t.session_id = ? AND t.seq >= ? ORDER BY t.seq, b.seq",
            (session_id, from_seq))
        return _turn_records(rows)

    def add_checkpoint(self, turn_id: int, messages: list[Message]) -> None:
        """Record that the history, as of now in turn ``turn_id``, is ``messages``
        (a compaction replaced it); ``load_messages`` starts from the latest one."""
        now, raw = time.time(), messages_to_json(messages)
        with self._write() as db:
            db.execute("INSERT INTO checkpoints (session_id, turn_id, block_seq, messages,"
                       " created) SELECT session_id, id, (SELECT COALESCE(MAX(seq), 0)"
                       " FROM turn_blocks WHERE turn_id = ?), ?, ? FROM turns WHERE id = ?",
                       (turn_id, raw, now, turn_id))

    def last_turn_id(self, session_id: str) -> int | None:
        rows = self._read("SELECT id FROM turns WHERE session_id = ? AND rewound IS NULL"
                          " ORDER BY seq DESC LIMIT 1", (session_id,))
        return int(rows[0][0]) if rows else None

    def load_messages(self, session_id: str) -> list[Message]:
        """The provider-neutral history of the session, repaired to be valid:
        the latest compaction checkpoint, then what was recorded after it."""
        msgs: list[Message] = []
        start_seq, start_turn, after_block = 0, None, 0
        checkpoint = self._read(
            "SELECT c.messages, c.turn_id, c.block_seq, t.seq FROM checkpoints c"
            " JOIN turns t ON t.id = c.turn_id WHERE c.session_id = ? AND t.rewound IS NULL"
            " ORDER BY c.id DESC LIMIT 1", (session_id,))
        if checkpoint:
            raw, start_turn, after_block, start_seq = checkpoint[0]
            msgs = messages_from_json(str(raw))
        for turn in self.turns(session_id, start_seq):  # what lies behind it is not read
            if turn.rewound is not None:
                continue
            resumed_here = turn.id == start_turn
            if turn.user_text and not resumed_here:
                msgs.append(Message.user(turn.user_text))
            blocks = turn.blocks[after_block:] if resumed_here else turn.blocks
            for rec in in_request_order(blocks):
                _append_block(msgs, rec.to_block(), user_side=rec.is_image)
        return repair(msgs)

    def session_usage(self, session_id: str) -> SessionUsage:
        row = self._read(
            "SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),"
            " COALESCE(SUM(cost), 0.0),"
            " SUM(CASE WHEN cost IS NULL AND (input_tokens > 0 OR output_tokens > 0)"
            "     THEN 1 ELSE 0 END),"
            " COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0)"
            " FROM turns WHERE session_id = ?", (session_id,))[0]
        unknown = bool(row[4])
        return SessionUsage(int(row[0]), int(row[1]), int(row[2]),
                            None if unknown else float(row[3]), int(row[5]), int(row[6]))

    def turns_page(self, session_id: str, after_seq: int = 0,
                   limit: int = 50) -> list[TurnRecord]:
        """Up to ``limit`` turns after turn ``after_seq``, with their blocks: a long
        transcript read a page at a time (``ai sessions show`` shows the first
        page while later ones are still unread)."""
        rows = self._read(
            _TURN_ROWS +
            " WHERE t.id IN (SELECT id FROM turns WHERE session_id = ? AND seq > ?"
            "                ORDER BY seq LIMIT ?)"
            " ORDER BY t.seq, b.seq", (session_id, after_seq, limit))
        return _turn_records(rows)

    def export(self, session_id: str, fmt: Literal["markdown", "json"] = "markdown") -> str:
        from swebash_py.store import export as exporter  # `ai sessions export` only

        info = self.get_session(session_id)
        if info is None:
            raise UsageError(f"no session {session_id!r}")
        turns = self.turns(info.id)
        if fmt == "json":
            return exporter.to_json(info, turns)
        return exporter.to_markdown(info, turns)


def _close_and_record(conn: sqlite3.Connection, path: Path, writable: bool) -> None:
    conn.close()
    if writable:
        soundness.record(path)


def _append_block(msgs: list[Message], block: Block, user_side: bool = False) -> None:
    """``user_side``: the row was the user's (an image, or the note for a lost one)."""
    user = user_side or isinstance(block, ToolResultBlock | ImageBlock)
    role: Role = "user" if user else "assistant"
    if msgs and msgs[-1].role == role:
        msgs[-1].blocks.append(block)
    else:
        msgs.append(Message(role, [block]))


def _info(row: Any) -> SessionInfo:
    return SessionInfo(str(row[0]), _str(row[1]), float(row[2]), float(row[3]),
                       _str(row[4]), _str(row[5]), int(row[6]))


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


# a turn's columns, then its blocks' (one row per block; _turn_records reads them)
_TURN_ROWS = ("SELECT t.id, t.seq, t.user_text, t.created, t.completed, t.stop_reason,"
              " t.input_tokens, t.output_tokens, t.cost,"
              " b.block_type, b.text, b.json, b.created, t.rewound,"
              " t.cache_read_tokens, t.cache_write_tokens"
              " FROM turns t LEFT JOIN turn_blocks b ON b.turn_id = t.id")


def _turn_records(rows: list[Any]) -> list[TurnRecord]:
    """Turns from rows of (turn columns, block columns), one row per block."""
    turns: list[TurnRecord] = []
    for r in rows:
        if not turns or turns[-1].id != r[0]:
            turns.append(TurnRecord(int(r[0]), int(r[1]), str(r[2]), float(r[3]),
                                    _float(r[4]), _str(r[5]), int(r[6]), int(r[7]),
                                    _float(r[8]), rewound=_float(r[13]),
                                    cache_read_tokens=int(r[14]),
                                    cache_write_tokens=int(r[15])))
        if r[9] is not None:
            turns[-1].blocks.append(BlockRecord(str(r[9]), str(r[10]),
                                                parse_json(_str(r[11])), float(r[12])))
    return turns
