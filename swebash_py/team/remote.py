"""Continuing or showing a session another host started (from the team store)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swebash_py.errors import SwebashError
from swebash_py.team.url import store_url

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings


def pull_session(settings: Settings, store: Any, key: str,
                 warn: Any = None) -> str | None:
    """With a store URL: copy the team store's records of session ``key`` (an id or
    a unique prefix) into the local store; returns its full id, or None when the
    server does not have it. A server that cannot be reached is only a warning
    when the session is here already; else an error."""
    url = store_url(settings)
    if not url:
        return None
    from swebash_py.team import reads
    from swebash_py.team.server_schema import SchemaProblem
    from swebash_py.team.uploader import StoreUnavailable, open_checked

    local = store.get_session(key)
    try:
        conn = open_checked(url)
    except (SchemaProblem, StoreUnavailable) as exc:
        if local is None:
            raise SwebashError(f"no session '{key}' here, and {exc}") from exc
        if warn is not None:
            warn(f"{exc}; continuing with this host's copy")
        return None
    try:
        found = reads.resolve(conn, local.id if local else key)
        if found is None:
            return None
        store.merge_remote(found, reads.fetch_turns(conn, found.id))
        return found.id
    finally:
        conn.close()


def fetch_for_show(settings: Settings, key: str) -> tuple[Any, list[Any]] | None:
    """(session, turns) from the team store for ``ai sessions show``; None if absent."""
    url = store_url(settings)
    if not url:
        return None
    from swebash_py.team import reads
    from swebash_py.team.sync import connect_checked

    conn = connect_checked(url)
    try:
        found = reads.resolve(conn, key)
        return (found, reads.fetch_turns(conn, found.id)) if found else None
    finally:
        conn.close()
