"""`ai audit [--host H] [--user U] [--since WHEN] [--json]`."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer


def audit(host: Annotated[str | None, typer.Option("--host", help="hostname or host-id prefix")]
          = None,
          user: Annotated[str | None, typer.Option("--user", help="OS user")] = None,
          since: Annotated[str | None, typer.Option("--since",
                                                    help="ISO-8601 time or a duration (2h)")]
          = None,
          as_json: Annotated[bool, typer.Option("--json", help="one JSON object per line")]
          = False) -> None:
    """Every tool call the assistant made, with who allowed it (the team's with a store URL)."""
    from swebash_py.cli.settings import load_settings
    from swebash_py.team.audit_query import Filters, parse_since, text_line
    from swebash_py.team.url import store_url

    filters = Filters(host, user, parse_since(since))
    settings = load_settings()
    rows = _server(settings, filters) if store_url(settings) else _local(filters)
    for row in rows:
        typer.echo(json.dumps(row, ensure_ascii=False) if as_json else text_line(row))
    if not rows and not as_json:
        typer.echo("no tool calls recorded", err=True)


def _server(settings: Any, filters: Any) -> list[dict[str, Any]]:
    from swebash_py.team.audit_query import server_rows
    from swebash_py.team.sync import connect_checked, require_url

    conn = connect_checked(require_url(settings))
    try:
        return server_rows(conn, filters)
    finally:
        conn.close()


def _local(filters: Any) -> list[dict[str, Any]]:
    from swebash_py.config.paths import data_dir
    from swebash_py.store.opening import open_store
    from swebash_py.team.audit_query import local_rows
    from swebash_py.team.host import current_host

    with open_store() as store:
        rows = store.audit_rows()
    return local_rows(rows, current_host(data_dir()), filters)
