"""``ai sync``: upload now, show what waits, verify the server's counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from swebash_py.errors import SwebashError
from swebash_py.team.host import Host, current_host
from swebash_py.team.outbox import TABLE, Outbox
from swebash_py.team.server_schema import SchemaProblem
from swebash_py.team.uploader import StoreUnavailable, drain, open_checked
from swebash_py.team.url import store_url

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings


class SyncFailed(SwebashError):
    """The upload could not be done (exit 1)."""


@dataclass
class Local:
    outbox: Outbox
    host: Host


def open_local(settings: Settings) -> Local:
    from swebash_py.config.paths import data_dir
    from swebash_py.store.opening import open_store

    store = open_store()  # creates / migrates the database
    path = store.path
    store.close()
    host = current_host(data_dir())
    return Local(Outbox(path, host, settings.store.upload_output), host)


def require_url(settings: Settings) -> str:
    url = store_url(settings)
    if not url:
        raise SyncFailed("no team store configured: set [store] url or SWEBASH_STORE_URL")
    return url


def connect_checked(url: str) -> Any:
    try:
        return open_checked(url)
    except (SchemaProblem, StoreUnavailable) as exc:
        raise SyncFailed(str(exc)) from exc


def upload_now(settings: Settings) -> int:
    """Send everything waiting; returns how many records went up."""
    url = require_url(settings)
    local = open_local(settings)
    try:
        conn = connect_checked(url)
        try:
            return drain(conn, local.outbox)
        except Exception as exc:
            from swebash_py.team.url import scrub

            raise SyncFailed(f"upload failed: {scrub(str(exc).strip(), url)}") from exc
        finally:
            conn.close()
    finally:
        local.outbox.close()


def status_lines(settings: Settings) -> list[str]:
    local = open_local(settings)
    try:
        lines = [f"{local.outbox.waiting()} records waiting",
                 f"last upload: {local.outbox.last_upload() or 'never'}"]
    finally:
        local.outbox.close()
    if not store_url(settings):
        lines.append("no team store configured ([store] url / SWEBASH_STORE_URL)")
    return lines


def verify_lines(settings: Settings) -> tuple[list[str], bool]:
    """Counts per host on the server, and this host's local counts beside them;
    ok is False when the server holds fewer of this host's records than it has."""
    url = require_url(settings)
    local = open_local(settings)
    try:
        mine = local.outbox.local_counts()
        waiting = local.outbox.waiting()
    finally:
        local.outbox.close()
    conn = connect_checked(url)
    try:
        server = _server_counts(conn)
    finally:
        conn.close()
    kinds = list(TABLE)
    lines = ["host                                  hostname         " +
             " ".join(f"{k + 's':>9}" for k in kinds)]
    ok = True
    for (host_id, hostname), counts in sorted(server.items()):
        lines.append(f"{host_id:<37} {hostname[:16]:<16} " +
                     " ".join(f"{counts.get(k, 0):>9}" for k in kinds))
    theirs = server.get((local.host.host_id, local.host.hostname), {})
    lines.append(f"{'this host (local)':<37} {local.host.hostname[:16]:<16} " +
                 " ".join(f"{mine[k]:>9}" for k in kinds))
    missing = {k: mine[k] - theirs.get(k, 0) for k in kinds if mine[k] > theirs.get(k, 0)}
    if missing:
        ok = False
        detail = ", ".join(f"{n} {k}s" for k, n in missing.items())
        lines.append(f"not on the server yet: {detail} ({waiting} records waiting)")
    else:
        lines.append("this host: every local record is on the server")
    return lines, ok


def _server_counts(conn: Any) -> dict[tuple[str, str], dict[str, int]]:
    out: dict[tuple[str, str], dict[str, int]] = {}
    for kind, table in TABLE.items():
        rows = conn.execute(f"SELECT host_id, MIN(hostname), COUNT(*) FROM {table}"
                            " GROUP BY host_id").fetchall()
        for host_id, hostname, count in rows:
            out.setdefault((str(host_id), str(hostname)), {})[kind] = int(count)
    return out
