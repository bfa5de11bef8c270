"""The team store's schema on PostgreSQL: ordered migrations, applied under an
advisory lock, recorded in ``schema_migrations``.

Every record carries the host (id and hostname) and OS user that made it;
``db_role`` is filled by the server (``session_user``), not by the client.
Rows are only ever inserted: a later fact (a turn's outcome) is a record of its
own. The role ``swebash_client`` gets SELECT and INSERT, nothing else, so a
client can neither change nor delete what was recorded (the audit above all).

An administrator sets it up once (see the README, "Team store"): create the
role ``swebash_client`` and a login role per person ``IN ROLE swebash_client``,
then run ``ai sync`` with the database owner's URL: that creates or upgrades
this schema and grants the client role.
"""

from __future__ import annotations

from typing import Any

CLIENT_ROLE = "swebash_client"
LOCK_KEY = 0x5EBA5  # pg_advisory_xact_lock key for migrations

_WHO = """
    host_id    text NOT NULL,
    hostname   text NOT NULL,
    os_user    text NOT NULL,
    db_role    text NOT NULL DEFAULT session_user,
    uploaded   timestamptz NOT NULL DEFAULT now()"""

V1 = f"""
CREATE TABLE sessions (
    id         uuid PRIMARY KEY,
    created    timestamptz NOT NULL,
    model      text,
    cwd        text,
    title      text,{_WHO}
);
CREATE TABLE turns (
    id         uuid PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES sessions(id),
    seq        integer NOT NULL,
    user_text  text NOT NULL,
    created    timestamptz NOT NULL,{_WHO}
);
CREATE INDEX turns_session ON turns(session_id, created);
CREATE TABLE turn_outcomes (
    turn_id       uuid PRIMARY KEY REFERENCES turns(id),
    completed     timestamptz NOT NULL,
    stop_reason   text,
    input_tokens  integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0,
    cost          double precision,{_WHO}
);
CREATE TABLE turn_rewinds (
    turn_id    uuid PRIMARY KEY REFERENCES turns(id),
    rewound    timestamptz NOT NULL,{_WHO}
);
CREATE TABLE turn_blocks (
    id         uuid PRIMARY KEY,
    turn_id    uuid NOT NULL REFERENCES turns(id),
    session_id uuid NOT NULL REFERENCES sessions(id),
    seq        integer NOT NULL,
    block_type text NOT NULL
               CHECK (block_type IN ('thinking', 'text', 'tool_use', 'tool_result')),
    text       text,
    content    jsonb,
    created    timestamptz NOT NULL,{_WHO}
);
CREATE INDEX turn_blocks_turn ON turn_blocks(turn_id, seq);
CREATE TABLE audit (
    id            uuid PRIMARY KEY,
    time          timestamptz NOT NULL,
    cwd           text,
    session_id    uuid,
    turn_id       uuid,
    tool          text NOT NULL,
    command       text,
    decision      text NOT NULL CHECK (decision IN ('user-once', 'user-always', 'rule',
                  'yolo', 'hook', 'denied', 'discarded')),
    allowed       boolean NOT NULL,
    exit_code     integer,
    duration_ms   integer,
    output_sha256 text,
    output_length integer,
    output        text,{_WHO}
);
CREATE INDEX audit_time ON audit(time);
CREATE INDEX audit_host ON audit(host_id, time)
"""

# v2: the model's own words on what a command is for (run_command's ``description``),
# shown in the question and kept in the audit beside the command it explains.
V2 = "ALTER TABLE audit ADD COLUMN description text"

MIGRATIONS: list[str] = [V1, V2]
SCHEMA_VERSION = len(MIGRATIONS)
TABLES = ("sessions", "turns", "turn_outcomes", "turn_rewinds", "turn_blocks", "audit")


class SchemaProblem(Exception):
    """The server cannot take our records now (message: one line for the user)."""


def server_version(conn: Any) -> int | None:
    """The highest applied migration; None when the database has no schema yet."""
    row = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
    if row is None or row[0] is None:
        return None
    got = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
    return int(got[0]) if got else 0


def check(conn: Any) -> None:
    """Raise ``SchemaProblem`` unless the server schema is exactly ours."""
    have = server_version(conn)
    if have is None:
        raise SchemaProblem("the team store has no swebash schema yet: run `ai sync` once "
                            "with the database owner's URL to create it")
    if have > SCHEMA_VERSION:
        raise SchemaProblem(f"the team store's schema is version {have}, newer than this "
                            f"ai's (version {SCHEMA_VERSION}): upgrade ai; records wait locally")
    if have < SCHEMA_VERSION:
        raise SchemaProblem(f"the team store's schema is version {have}, older than this "
                            f"ai's (version {SCHEMA_VERSION}): run `ai sync` once with the "
                            "database owner's URL to upgrade it")


def ensure(conn: Any) -> bool:
    """Create or upgrade the schema if this login may (the owner); True if it did.
    ``conn`` is in autocommit mode (each ``transaction()`` a real one).

    Runs under a transaction-scoped advisory lock, so two hosts starting at once
    apply each migration exactly once. A login that may not create tables
    changes nothing (``check`` then says what is missing)."""
    if not _may_create(conn):
        return False
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                     " version integer PRIMARY KEY,"
                     " applied timestamptz NOT NULL DEFAULT now())")
        have = server_version(conn) or 0
        if have > SCHEMA_VERSION:
            return False
        for number in range(have + 1, SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[number - 1]):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (number,))
        _grant(conn)
    return True


def _may_create(conn: Any) -> bool:
    """The owner (or a superuser) may; a member of the client role never does,
    even where ``public`` lets everyone create tables (PostgreSQL 14)."""
    row = conn.execute(
        "SELECT has_schema_privilege('public', 'CREATE')"
        " AND ((SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
        "      OR NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = %s"
        "                     AND pg_has_role(r.oid, 'MEMBER')))"
        " AND (to_regclass('schema_migrations') IS NULL"
        "      OR pg_has_role((SELECT tableowner FROM pg_tables"
        "                      WHERE tablename = 'schema_migrations'"
        "                      AND schemaname = 'public'), 'USAGE'))",
        (CLIENT_ROLE,)).fetchone()
    return bool(row and row[0])


def _grant(conn: Any) -> None:
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                          (CLIENT_ROLE,)).fetchone()
    if not exists:  # the README's set-up creates it (the owner may lack CREATEROLE)
        raise SchemaProblem(f"the role {CLIENT_ROLE} does not exist on the team store: "
                            "create it (see the README, \"Team store\") and run `ai sync` "
                            "again with the owner's URL")
    conn.execute(f"GRANT USAGE ON SCHEMA public TO {CLIENT_ROLE}")
    conn.execute(f"GRANT SELECT ON schema_migrations TO {CLIENT_ROLE}")
    for table in TABLES:
        conn.execute(f"GRANT SELECT, INSERT ON {table} TO {CLIENT_ROLE}")


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
