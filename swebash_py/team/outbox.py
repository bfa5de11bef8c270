"""The local side of uploading: what waits in ``outbox``, as server rows.

Rows are read in queue order and turned into the server's shape (host and
user added, text scrubbed, tool output held back unless allowed). Entries are
deleted only after the server committed them, so a killed upload sends them
again, and the server's ``ON CONFLICT DO NOTHING`` keeps one copy.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from swebash_py.store.privacy import digest, scrub, secret_values
from swebash_py.store.schema import connect
from swebash_py.team.host import Host

KINDS = ("session", "turn", "outcome", "rewind", "block", "audit")  # insert order (keys)


@dataclass
class Batch:
    """Up to ``limit`` queued records as server rows, per table."""

    last_seq: int = 0
    count: int = 0
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {k: [] for k in KINDS})


def utc(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(float(ts), UTC)


class Outbox:
    """A connection of its own to the sessions database (a background thread's)."""

    def __init__(self, path: Path, host: Host, upload_output: bool) -> None:
        self._conn = connect(path)
        self._lock = threading.Lock()
        self._host = host
        self._upload_output = upload_output
        self._secrets = secret_values()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def waiting(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    def last_upload(self) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM store_meta WHERE key = 'last_upload'").fetchone()
        return str(row[0]) if row else None

    def local_counts(self) -> dict[str, int]:
        """This host's records per kind (what the server should hold from us)."""
        q = {"session": "SELECT COUNT(*) FROM sessions WHERE host_id IS NULL",
             "turn": "SELECT COUNT(*) FROM turns WHERE host_id IS NULL",
             "outcome": "SELECT COUNT(*) FROM turns WHERE host_id IS NULL"
                        " AND completed IS NOT NULL",
             "rewind": "SELECT COUNT(*) FROM turns WHERE host_id IS NULL"
                       " AND rewound IS NOT NULL",
             "block": "SELECT COUNT(*) FROM turn_blocks WHERE host_id IS NULL",
             "audit": "SELECT COUNT(*) FROM audit"}
        with self._lock:
            return {k: int(self._conn.execute(sql).fetchone()[0]) for k, sql in q.items()}

    def next_batch(self, limit: int = 1000) -> Batch:
        with self._lock:
            queued = self._conn.execute("SELECT seq, kind, uid FROM outbox ORDER BY seq LIMIT ?",
                                        (limit,)).fetchall()
            batch = Batch()
            if not queued:
                return batch
            batch.last_seq, batch.count = int(queued[-1][0]), len(queued)
            by_kind: dict[str, list[str]] = {k: [] for k in KINDS}
            for _seq, kind, uid in queued:
                by_kind[str(kind)].append(str(uid))
            for kind, uids in by_kind.items():
                if uids:
                    batch.rows[kind] = [self._who(r) for r in self._rows(kind, uids)]
            return batch

    def done(self, last_seq: int) -> None:
        """The server committed everything up to ``last_seq``."""
        now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM outbox WHERE seq <= ?", (last_seq,))
            self._conn.execute("INSERT OR REPLACE INTO store_meta (key, value)"
                               " VALUES ('last_upload', ?)", (now,))
            self._conn.execute("COMMIT")

    # ---------------------------------------------------------------- rows
    def _who(self, row: dict[str, Any]) -> dict[str, Any]:
        return {**row, "host_id": self._host.host_id, "hostname": self._host.hostname,
                "os_user": self._host.user}

    def _rows(self, kind: str, uids: list[str]) -> list[dict[str, Any]]:
        marks = ", ".join("?" for _ in uids)
        sql, build = _QUERIES[kind]
        cur = self._conn.execute(sql.format(marks=marks), uids)
        names = [d[0] for d in cur.description]
        return [build(self, dict(zip(names, r, strict=True))) for r in cur.fetchall()]

    def _session(self, r: dict[str, Any]) -> dict[str, Any]:
        return {"id": r["id"], "created": utc(r["created"]), "model": r["model"],
                "cwd": r["cwd"], "title": scrub(r["title"], self._secrets)}

    def _turn(self, r: dict[str, Any]) -> dict[str, Any]:
        return {"id": r["uid"], "session_id": r["session_id"], "seq": r["seq"],
                "user_text": scrub(r["user_text"], self._secrets) or "",
                "created": utc(r["created"])}

    def _outcome(self, r: dict[str, Any]) -> dict[str, Any]:
        return {"turn_id": r["uid"], "completed": utc(r["completed"]),
                "stop_reason": r["stop_reason"], "input_tokens": r["input_tokens"],
                "output_tokens": r["output_tokens"], "cost": r["cost"]}

    def _rewind(self, r: dict[str, Any]) -> dict[str, Any]:
        return {"turn_id": r["uid"], "rewound": utc(r["rewound"])}

    def _block(self, r: dict[str, Any]) -> dict[str, Any]:
        text: str | None = scrub(r["text"], self._secrets) or ""
        content = json.loads(r["json"]) if r["json"] else {}
        if r["block_type"] == "tool_result" and not self._upload_output:
            sha, length = digest(text or "")
            content.update(output_sha256=sha, output_length=length)
            text = None
        return {"id": r["uid"], "turn_id": r["turn_uid"], "session_id": r["session_id"],
                "seq": r["seq"], "block_type": r["block_type"], "text": text,
                "content": json.dumps(content), "created": utc(r["created"])}

    def _audit(self, r: dict[str, Any]) -> dict[str, Any]:
        output = scrub(r["output"], self._secrets) if self._upload_output else None
        return {"id": r["uid"], "time": utc(r["time"]), "cwd": r["cwd"],
                "session_id": r["session_id"], "turn_id": r["turn_uid"], "tool": r["tool"],
                "command": scrub(r["command"], self._secrets), "decision": r["decision"],
                "allowed": bool(r["allowed"]), "exit_code": r["exit_code"],
                "duration_ms": r["duration_ms"], "output_sha256": r["output_sha256"],
                "output_length": r["output_length"], "output": output,
                "description": scrub(r["description"], self._secrets)}


_QUERIES: dict[str, tuple[str, Any]] = {
    "session": ("SELECT id, created, model, cwd, title FROM sessions"
                " WHERE host_id IS NULL AND id IN ({marks})", Outbox._session),
    "turn": ("SELECT uid, session_id, seq, user_text, created FROM turns"
             " WHERE host_id IS NULL AND uid IN ({marks})", Outbox._turn),
    "outcome": ("SELECT uid, completed, stop_reason, input_tokens, output_tokens, cost"
                " FROM turns WHERE host_id IS NULL AND completed IS NOT NULL"
                " AND uid IN ({marks})", Outbox._outcome),
    "rewind": ("SELECT uid, rewound FROM turns WHERE rewound IS NOT NULL AND uid IN ({marks})",
               Outbox._rewind),
    "block": ("SELECT b.uid, t.uid AS turn_uid, t.session_id, b.seq, b.block_type, b.text,"
              " b.json, b.created FROM turn_blocks b JOIN turns t ON t.id = b.turn_id"
              " WHERE b.host_id IS NULL AND b.uid IN ({marks})", Outbox._block),
    "audit": ("SELECT * FROM audit WHERE uid IN ({marks})", Outbox._audit),
}

COLUMNS: dict[str, tuple[str, ...]] = {
    "session": ("id", "created", "model", "cwd", "title"),
    "turn": ("id", "session_id", "seq", "user_text", "created"),
    "outcome": ("turn_id", "completed", "stop_reason", "input_tokens", "output_tokens", "cost"),
    "rewind": ("turn_id", "rewound"),
    "block": ("id", "turn_id", "session_id", "seq", "block_type", "text", "content", "created"),
    "audit": ("id", "time", "cwd", "session_id", "turn_id", "tool", "command", "decision",
              "allowed", "exit_code", "duration_ms", "output_sha256", "output_length", "output",
              "description"),
}
TABLE = {"session": "sessions", "turn": "turns", "outcome": "turn_outcomes",
         "rewind": "turn_rewinds",
         "block": "turn_blocks", "audit": "audit"}


