"""Sends queued records to the team store, in a background thread.

The thread wakes when the store queues a record (``notify``) and drains the
outbox in batches, each batch one server transaction of ``INSERT ... ON
CONFLICT DO NOTHING`` followed by one local commit that drops what went up.
It never blocks the caller: a server that is down or refuses our schema
leaves the records waiting (for the next run, or ``ai sync``); ``close``
waits at most ``EXIT_WAIT_S`` for uploads in flight.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from swebash_py.errors import install_extra
from swebash_py.team.host import Host
from swebash_py.team.outbox import COLUMNS, KINDS, TABLE, Outbox
from swebash_py.team.server_schema import SchemaProblem, check, ensure
from swebash_py.team.url import mask, scrub

EXIT_WAIT_S = 2.0
RETRY_S = 5.0
CONNECT_TIMEOUT_S = 3


class StoreUnavailable(Exception):
    """The team store cannot be reached or used (message: one line, no password)."""


def connect(url: str) -> Any:
    """A psycopg connection (imported here, never at start-up)."""
    try:
        import psycopg
    except ImportError as exc:  # an optional part: the [team] extra
        raise StoreUnavailable(f"the team store ({mask(url)}) needs psycopg, the [team] "
                               f"extra: {install_extra('team')}") from exc

    try:
        return psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True,
                               application_name="swebash")
    except psycopg.Error as exc:
        raise StoreUnavailable(f"cannot reach the team store {mask(url)}: "
                               f"{scrub(_first_line(exc), url)}") from exc
    except ValueError as exc:  # a malformed URL (psycopg's conninfo parser)
        raise StoreUnavailable(f"invalid store url {mask(url)}: "
                               f"{scrub(_first_line(exc), url)}") from exc


def open_checked(url: str) -> Any:
    """A connection to a store whose schema is ours (created/upgraded if we own it)."""
    conn = connect(url)
    try:
        ensure(conn)
        check(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def upload_batch(conn: Any, outbox: Outbox, limit: int = 1000) -> int:
    """Send up to ``limit`` queued records; returns how many entries went up."""
    batch = outbox.next_batch(limit)
    if not batch.count:
        return 0
    with conn.transaction(), conn.cursor() as cur:
        for kind in KINDS:
            rows = batch.rows[kind]
            if rows:
                cur.executemany(_insert_sql(kind), [_values(kind, r) for r in rows])
    outbox.done(batch.last_seq)
    return batch.count


def drain(conn: Any, outbox: Outbox) -> int:
    total = 0
    while n := upload_batch(conn, outbox):
        total += n
    return total


def _insert_sql(kind: str) -> str:
    cols = (*COLUMNS[kind], "host_id", "hostname", "os_user")
    marks = ", ".join("%s" for _ in cols)
    return (f"INSERT INTO {TABLE[kind]} ({', '.join(cols)}) VALUES ({marks})"
            " ON CONFLICT DO NOTHING")


def _values(kind: str, row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[c] for c in (*COLUMNS[kind], "host_id", "hostname", "os_user"))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Uploader:
    """The background thread; one per ``ai`` process with a store URL."""

    def __init__(self, db_path: Path, url: str, host: Host, *, upload_output: bool,
                 on_problem: Callable[[str], None]) -> None:
        self._db_path, self._url, self._host = db_path, url, host
        self._upload_output = upload_output
        self._on_problem = on_problem
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._run, name="swebash-upload", daemon=True)
        self._conn: Any = None
        self._told: set[str] = set()
        self.uploaded = 0
        self.problem: str | None = None

    def start(self) -> None:
        """Start the thread; it first sends what earlier runs left waiting."""
        self._thread.start()
        self._wake.set()

    def notify(self) -> None:
        """A record was queued: upload soon (cheap; callable from any thread)."""
        self._idle.clear()
        self._wake.set()

    def close(self, timeout: float = EXIT_WAIT_S) -> None:
        """Let the thread finish what is queued, waiting at most ``timeout``."""
        self._closing.set()
        self._wake.set()
        self._thread.join(timeout)

    def wait_idle(self, timeout: float) -> bool:
        """True once everything queued so far went up (tests, benchmarks)."""
        return self._idle.wait(timeout)

    # ---------------------------------------------------------------- thread
    def _run(self) -> None:
        outbox: Outbox | None = None
        retry_at = 0.0
        try:
            outbox = Outbox(self._db_path, self._host, self._upload_output)
            while True:
                self._wake.wait(timeout=None if retry_at == 0 else
                                max(0.0, retry_at - time.monotonic()))
                self._wake.clear()
                if self.problem and self._closing.is_set():
                    return  # failed already: do not hold the exit up again
                if time.monotonic() >= retry_at:
                    retry_at = 0.0 if self._pass(outbox) else time.monotonic() + RETRY_S
                if self._closing.is_set():
                    return
        finally:
            self._close_conn()
            if outbox is not None:
                outbox.close()

    def _pass(self, outbox: Outbox) -> bool:
        """Upload everything queued; False when the server could not take it."""
        try:
            if self._conn is None:
                self._conn = open_checked(self._url)
            self.uploaded += drain(self._conn, outbox)
            self.problem = None
            self._idle.set()
            return True
        except SchemaProblem as exc:
            self._fail(str(exc))
        except StoreUnavailable as exc:
            self._fail(str(exc))
        except Exception as exc:  # psycopg errors, a dropped connection
            self._fail(f"team store upload failed: {scrub(_first_line(exc), self._url)}")
        return False

    def _fail(self, message: str) -> None:
        self.problem = message
        self._close_conn()
        if message not in self._told:  # one line per problem, not one per retry
            self._told.add(message)
            self._on_problem(message)

    def _close_conn(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None
