"""The sessions database: connection settings and migrations.

Migrations are an ordered list of SQL scripts; ``PRAGMA user_version`` records
how many have run. Each runs in its own ``BEGIN IMMEDIATE`` transaction that
re-reads the version first, so two processes opening a fresh database at once
apply each script exactly once.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

from swebash_py.config.paths import private_file
from swebash_py.errors import StorageError
from swebash_py.store.soundness import verify

BUSY_TIMEOUT_S = 5.0

# v1: the basic "TurnBlock" schema.
V1 = """
CREATE TABLE sessions (
    id       TEXT PRIMARY KEY,
    title    TEXT,
    created  REAL NOT NULL,
    updated  REAL NOT NULL,
    model    TEXT,
    cwd      TEXT
);
CREATE TABLE turns (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    user_text   TEXT NOT NULL DEFAULT '',
    created     REAL NOT NULL,
    completed   REAL,
    stop_reason TEXT,
    UNIQUE (session_id, seq)
);
CREATE TABLE turn_blocks (
    id         INTEGER PRIMARY KEY,
    turn_id    INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    block_type TEXT NOT NULL
               CHECK (block_type IN ('thinking', 'text', 'tool_use', 'tool_result')),
    text       TEXT NOT NULL DEFAULT '',
    json       TEXT,
    created    REAL NOT NULL,
    UNIQUE (turn_id, seq)
);
"""

# v2: usage and cost per turn; an index for "newest sessions first".
V2 = """
ALTER TABLE turns ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cost REAL;
CREATE INDEX sessions_updated ON sessions(updated DESC);
CREATE INDEX sessions_cwd ON sessions(cwd, updated DESC);
"""

# v3: compaction checkpoints. The history up to block ``block_seq`` of turn
# ``turn_id`` is ``messages`` (JSON, secrets redacted); loading starts there.
V3 = """
CREATE TABLE checkpoints (
    id         INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_id    INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    block_seq  INTEGER NOT NULL,
    messages   TEXT NOT NULL,
    created    REAL NOT NULL
);
CREATE INDEX checkpoints_session ON checkpoints(session_id, id DESC);
"""

# v4: file checkpoints for /undo and /rewind. One row per file change a tool
# made in a turn: the content and mode before (NULL: the file did not exist)
# and after (NULL: deleted). Contents are stored as they are (not redacted):
# they are what undo writes back. ``reverted`` is set once undone; a turn taken
# back by /rewind gets ``rewound`` and is no longer sent to the model.
V4 = """
CREATE TABLE file_changes (
    id          INTEGER PRIMARY KEY,
    turn_id     INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    tool        TEXT NOT NULL,
    before      BLOB,
    before_mode INTEGER,
    after       BLOB,
    after_mode  INTEGER,
    created     REAL NOT NULL,
    reverted    REAL
);
CREATE INDEX file_changes_turn ON file_changes(turn_id, id);
ALTER TABLE turns ADD COLUMN rewound REAL;
"""

# v5: global ids and the upload outbox. Session ids become UUIDv7 (time from
# ``created``; foreign keys are checked at COMMIT, after every reference has
# moved), turns and blocks get a ``uid``; ``host_id`` is NULL for records made
# on this host, else the host that made them (a session continued from the
# team store); ``legacy_id`` keeps a session's old 8-character id, which the
# CLI still accepts. Every record made here is queued in ``outbox`` in the same
# transaction, so an upload can never miss one (the existing ones included).
V_GLOBAL_IDS = """
PRAGMA defer_foreign_keys = ON;
CREATE TEMP TABLE session_ids AS SELECT id AS old, swebash_uuid7(created) AS new FROM sessions;
UPDATE turns SET session_id = (SELECT new FROM temp.session_ids WHERE old = turns.session_id);
UPDATE checkpoints SET session_id =
    (SELECT new FROM temp.session_ids WHERE old = checkpoints.session_id);
ALTER TABLE sessions ADD COLUMN legacy_id TEXT;
UPDATE sessions SET legacy_id = id,
    id = (SELECT new FROM temp.session_ids WHERE old = sessions.id);
DROP TABLE temp.session_ids;
ALTER TABLE sessions ADD COLUMN host_id TEXT;
ALTER TABLE sessions ADD COLUMN hostname TEXT;
ALTER TABLE sessions ADD COLUMN os_user TEXT;
ALTER TABLE turns ADD COLUMN uid TEXT;
ALTER TABLE turns ADD COLUMN host_id TEXT;
UPDATE turns SET uid = swebash_uuid7(created);
CREATE UNIQUE INDEX turns_uid ON turns(uid);
ALTER TABLE turn_blocks ADD COLUMN uid TEXT;
ALTER TABLE turn_blocks ADD COLUMN host_id TEXT;
UPDATE turn_blocks SET uid = swebash_uuid7(created);
CREATE UNIQUE INDEX turn_blocks_uid ON turn_blocks(uid);
CREATE TABLE audit (
    uid           TEXT PRIMARY KEY,
    time          REAL NOT NULL,
    session_id    TEXT,
    turn_uid      TEXT,
    cwd           TEXT,
    tool          TEXT NOT NULL,
    command       TEXT,
    decision      TEXT NOT NULL,
    allowed       INTEGER NOT NULL,
    exit_code     INTEGER,
    duration_ms   INTEGER,
    output_sha256 TEXT,
    output_length INTEGER,
    output        TEXT
);
CREATE INDEX audit_time ON audit(time);
CREATE TABLE outbox (
    seq  INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('session', 'turn', 'block', 'outcome', 'rewind',
                                       'audit')),
    uid  TEXT NOT NULL
);
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO outbox (kind, uid) SELECT 'session', id FROM sessions ORDER BY created;
INSERT INTO outbox (kind, uid) SELECT 'turn', uid FROM turns ORDER BY created, id;
INSERT INTO outbox (kind, uid) SELECT 'block', uid FROM turn_blocks ORDER BY created, id;
INSERT INTO outbox (kind, uid)
    SELECT 'outcome', uid FROM turns WHERE completed IS NOT NULL ORDER BY completed, id;
INSERT INTO outbox (kind, uid)
    SELECT 'rewind', uid FROM turns WHERE rewound IS NOT NULL ORDER BY rewound, id;
"""

# v6: prompt-cache tokens per turn (of input_tokens: read from / written to the
# provider's cache), for /cost.
V_CACHE_TOKENS = """
ALTER TABLE turns ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
"""

# v7: what a command preview's apply changed beyond a file's bytes and bits
# (kind, symlink target, owner, user xattrs, hard-link partner), as JSON;
# NULL for write_file and edit_file records.
V_PATH_META = """
ALTER TABLE file_changes ADD COLUMN before_meta TEXT;
ALTER TABLE file_changes ADD COLUMN after_meta TEXT;
"""

# v8: the model's own words on what a call is for (run_command's ``description``),
# kept beside the command in the local audit.
V_AUDIT_DESCRIPTION = """
ALTER TABLE audit ADD COLUMN description TEXT;
"""

MIGRATIONS: list[str] = [V1, V2, V3, V4, V_GLOBAL_IDS, V_CACHE_TOKENS, V_PATH_META,
                         V_AUDIT_DESCRIPTION]
SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed), check and migrate the database at ``path``.

    Raises ``DamagedDatabase`` when it is not sound (``soundness.verify``)
    and ``StorageError`` when a newer version wrote it; the sqlite3 errors are
    the caller's to convert.
    """
    private_file(path)  # SQLite gives its -wal and -shm files the same mode
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                           check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        check_version(conn, path)
        verify(conn, path)
        _enable_wal(conn)
        # NORMAL is durable against a killed process in WAL mode (only an OS crash
        # can lose the last commits), and much faster than FULL.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open the database for reading only, needing no space on the disk (a full
    disk must not stop ``ai sessions list``). WAL mode wants a ``-shm`` file it
    may be unable to create: with no pages in a ``-wal`` (none, or the empty one
    a failed open leaves) the file is whole, and SQLite may read it as immutable."""
    uri = "file:" + quote(str(path)) + "?mode=ro"
    for extra in ("", "&immutable=1"):
        if extra and _wal_bytes(path):
            break
        conn = sqlite3.connect(uri + extra, uri=True, timeout=BUSY_TIMEOUT_S,
                               isolation_level=None, check_same_thread=False)
        try:
            check_version(conn, path)
            return conn
        except sqlite3.OperationalError:
            conn.close()
            if extra:
                raise
    raise sqlite3.OperationalError("disk I/O error")


def _wal_bytes(path: Path) -> int:
    try:
        return Path(f"{path}-wal").stat().st_size
    except FileNotFoundError:
        return 0


def check_version(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a database written by a newer version (its schema is unknown here)."""
    found = version(conn)
    if found > SCHEMA_VERSION:
        raise StorageError(
            f"the sessions database {path} was written by a newer swebash-py (schema "
            f"v{found}; this version knows v{SCHEMA_VERSION}): upgrade swebash-py to use it, "
            "or set SWEBASH_HOME to another directory")


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL; retried, as SQLite skips the busy handler for this change
    while another process is creating the same database."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _uuid7_at(created: float | None) -> str:
    from swebash_py.store.ids import uuid7

    return uuid7(float(created) if created is not None else None)


def version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> None:
    """Apply the missing migrations up to ``target``, each in its own transaction."""
    if version(conn) >= target:
        return
    conn.create_function("swebash_uuid7", 1, _uuid7_at)
    for number in range(1, target + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version(conn) < number:
                for statement in _statements(MIGRATIONS[number - 1]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    """Split a script into statements (``executescript`` would commit on its own)."""
    return [s.strip() for s in script.split(";") if s.strip()]
