"""`ai sync [--status] [--verify]`: the team store's upload, by hand."""

from __future__ import annotations

from typing import Annotated

import typer


def sync(status: Annotated[bool, typer.Option("--status", help="what waits, last upload")]
         = False,
         verify: Annotated[bool, typer.Option("--verify",
                                              help="compare counts per host with the server")]
         = False) -> None:
    """Upload waiting records to the team store now (exit 1 if it cannot)."""
    from swebash_py.cli.settings import load_settings
    from swebash_py.team import sync as team_sync

    settings = load_settings()
    if status:
        for line in team_sync.status_lines(settings):
            typer.echo(line)
        return
    if verify:
        lines, ok = team_sync.verify_lines(settings)
        for line in lines:
            typer.echo(line)
        if not ok:
            raise typer.Exit(1)
        return
    sent = team_sync.upload_now(settings)
    typer.echo(f"uploaded {sent} records")
