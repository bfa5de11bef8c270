"""``ai audit``: the tool calls, from the team store (or, without one, locally)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from swebash_py.errors import UsageError

FIELDS = ("time", "host", "host_id", "user", "db_role", "cwd", "session", "turn", "tool",
          "command", "decision", "allowed", "exit_code", "duration_ms", "output_sha256",
          "description")
_DURATION = re.compile(r"^(\d+)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


@dataclass(frozen=True)
class Filters:
    host: str | None = None
    user: str | None = None
    since: datetime | None = None


def parse_since(text: str | None, now: datetime | None = None) -> datetime | None:
    """ISO-8601 (a naive time is UTC) or a duration back from now (``2h``, ``3d``)."""
    if not text:
        return None
    now = now or datetime.now(UTC)
    if match := _DURATION.match(text.strip().lower()):
        return now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since: expected ISO-8601 or a duration like 2h, got {text!r}"
                         ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def server_rows(conn: Any, filters: Filters) -> list[dict[str, Any]]:
    where: list[str] = ["TRUE"]
    args: list[Any] = []
    if filters.host:
        where.append("(hostname = %s OR host_id LIKE %s)")
        args += [filters.host, filters.host + "%"]
    if filters.user:
        where.append("os_user = %s")
        args.append(filters.user)
    if filters.since:
        where.append("time >= %s")
        args.append(filters.since)
    rows = conn.execute(
        "SELECT time, hostname, host_id, os_user, db_role, cwd, session_id::text,"
        " turn_id::text, tool, command, decision, allowed, exit_code, duration_ms,"
        " output_sha256, description"
        f" FROM audit WHERE {' AND '.join(where)} ORDER BY time, id",
        args).fetchall()
    return [_as_dict(r) for r in rows]


def local_rows(rows: list[dict[str, Any]], host: Any, filters: Filters) -> list[dict[str, Any]]:
    """This host's rows (``Store.audit_rows``) in the same shape, filtered."""
    if filters.host and filters.host != host.hostname and not host.host_id.startswith(
            filters.host):
        return []
    if filters.user and filters.user != host.user:
        return []
    since = filters.since.timestamp() if filters.since else 0.0
    return [_as_dict((datetime.fromtimestamp(r["time"], UTC), host.hostname, host.host_id,
                      host.user, None, r["cwd"], r["session_id"], r["turn_uid"], r["tool"],
                      r["command"], r["decision"], bool(r["allowed"]), r["exit_code"],
                      r["duration_ms"], r["output_sha256"], r.get("description")))
            for r in rows if r["time"] >= since]


def _as_dict(row: Any) -> dict[str, Any]:
    out = dict(zip(FIELDS, row, strict=True))
    out["time"] = iso(out["time"])
    return out


def text_line(row: dict[str, Any]) -> str:
    ran = "ran" if row["allowed"] else "refused"
    code = "" if row["exit_code"] is None else f" exit {row['exit_code']}"
    return (f"{row['time']}  {str(row['host'])[:16]:<16} {str(row['user'])[:12]:<12} "
            f"{row['decision']:<11} {ran:<7}{code:<8} {row['tool']}: {row['command']}")
