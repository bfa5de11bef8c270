"""Team-wide reads from the store: every host's sessions, one session whole."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from swebash_py.errors import UsageError
from swebash_py.store.privacy import NOT_UPLOADED


@dataclass(frozen=True)
class TeamSession:
    id: str
    hostname: str
    os_user: str
    host_id: str
    created: float
    updated: float
    turns: int
    title: str | None
    model: str | None
    cwd: str | None


@dataclass
class RemoteTurn:
    id: str
    seq: int
    user_text: str
    created: float
    host_id: str
    completed: float | None = None
    stop_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    rewound: float | None = None  # taken back by /rewind (on any host)
    blocks: list[dict[str, Any]] = field(default_factory=list)


_LIST = """
SELECT s.id::text, s.hostname, s.os_user, s.host_id, extract(epoch FROM s.created),
       extract(epoch FROM COALESCE(GREATEST(s.created, MAX(t.created)), s.created)),
       COUNT(t.id) FILTER (WHERE r.turn_id IS NULL),
       COALESCE(s.title, (SELECT t1.user_text FROM turns t1
                          WHERE t1.session_id = s.id ORDER BY t1.created LIMIT 1)),
       s.model, s.cwd
FROM sessions s LEFT JOIN turns t ON t.session_id = s.id
     -- a turn taken back by /rewind (on any host) is no longer part of the
     -- conversation: not counted, as the local list does not count it
     LEFT JOIN turn_rewinds r ON r.turn_id = t.id
{where}
GROUP BY s.id ORDER BY 6 DESC, s.id DESC {limit}
"""


def list_sessions(conn: Any, limit: int | None = 20) -> list[TeamSession]:
    """Every host's sessions, most recently active first."""
    sql = _LIST.format(where="", limit="LIMIT %s" if limit else "")
    rows = conn.execute(sql, (limit,) if limit else ()).fetchall()
    return [_session(r) for r in rows]


def all_ids(conn: Any) -> list[str]:
    return [str(r[0]) for r in conn.execute("SELECT id::text FROM sessions").fetchall()]


def resolve(conn: Any, prefix: str) -> TeamSession | None:
    """The session whose id starts with ``prefix`` (unique), or None."""
    key = prefix.strip().lower()
    if not key or any(c not in "0123456789abcdef-" for c in key):
        return None
    sql = _LIST.format(where="WHERE s.id::text LIKE %s", limit="LIMIT 2")
    rows = conn.execute(sql, (key + "%",)).fetchall()
    if len(rows) > 1:
        raise UsageError(f"session id {prefix!r} is ambiguous on the team store; "
                         "give more characters")
    return _session(rows[0]) if rows else None


def fetch_turns(conn: Any, session_id: str) -> list[RemoteTurn]:
    """The session's turns (every host's), oldest first, with their blocks."""
    rows = conn.execute(
        "SELECT t.id::text, t.seq, t.user_text, extract(epoch FROM t.created), t.host_id,"
        " extract(epoch FROM o.completed), o.stop_reason, o.input_tokens, o.output_tokens,"
        " o.cost, extract(epoch FROM r.rewound) FROM turns t"
        " LEFT JOIN turn_outcomes o ON o.turn_id = t.id"
        " LEFT JOIN turn_rewinds r ON r.turn_id = t.id"
        " WHERE t.session_id = %s ORDER BY t.created, t.id", (session_id,)).fetchall()
    turns = {str(r[0]): RemoteTurn(str(r[0]), int(r[1]), str(r[2]), float(r[3]), str(r[4]),
                                   _num(r[5]), r[6], int(r[7] or 0), int(r[8] or 0),
                                   _num(r[9]), _num(r[10]))
             for r in rows}
    blocks = conn.execute(
        "SELECT id::text, turn_id::text, seq, block_type, text, content,"
        " extract(epoch FROM created) FROM turn_blocks WHERE session_id = %s"
        " ORDER BY turn_id, seq", (session_id,)).fetchall()
    for bid, tid, seq, kind, text, content, created in blocks:
        if tid in turns:
            turns[tid].blocks.append(_block(bid, int(seq), kind, text, content, float(created)))
    return list(turns.values())


def _block(bid: str, seq: int, kind: str, text: str | None, content: Any,
           created: float) -> dict[str, Any]:
    data = content if isinstance(content, dict) else json.loads(content or "{}")
    meta = {k: v for k, v in data.items() if k not in ("output_sha256", "output_length")}
    return {"id": bid, "seq": seq, "type": kind,
            "text": NOT_UPLOADED if text is None else text,
            "json": json.dumps(meta) if meta else None, "created": created}


def _session(r: Any) -> TeamSession:
    return TeamSession(str(r[0]), str(r[1]), str(r[2]), str(r[3]), float(r[4]), float(r[5]),
                       int(r[6]), r[7], r[8], r[9])


def _num(value: Any) -> float | None:
    return None if value is None else float(value)
