"""`ai sessions list|show ID|delete ID|export ID`."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from swebash_py.front.words import DIR_WIDTH, age, directory_text, turns_text

app = typer.Typer(help="Stored conversations.", no_args_is_help=True, add_completion=False)


def _store() -> Any:
    from swebash_py.store.opening import open_store

    return open_store()


def _resolve(store: Any, session_id: str) -> Any:
    info = store.get_session(session_id)
    if info is None:
        typer.echo(f"ai: no session '{session_id}' (see `ai sessions list`)", err=True)
        raise typer.Exit(1)
    return info


LIST_COLUMNS = ("ID", "UPDATED", "TURNS", "DIRECTORY", "MODEL", "TITLE")


@app.command("list")
def list_(limit: Annotated[int, typer.Option("-n", "--limit")] = 20,
          all_hosts: Annotated[bool, typer.Option(
              "--all-hosts", help="the team's sessions, from the team store")] = False) -> None:
    """Newest first, one line each: id, updated, turns, directory, model, title
    (--all-hosts: id, host, user, updated, turns, title)."""
    if all_hosts:
        _list_all_hosts(limit)
        return
    store = _store()
    sessions = store.list_sessions(limit)
    if not sessions:
        typer.echo("no sessions yet")
        return
    short = store.short_ids([info.id for info in sessions])
    width = max(len(short[i.id]) for i in sessions)
    if sys.stdout.isatty():  # piped (`| awk '{print $1}'`), every line is a session
        typer.echo(f"{'ID':<{width}}  {'UPDATED':>9}  {'TURNS':>10}  {'DIRECTORY':<{DIR_WIDTH}}"
                   f"  {'MODEL':<28}  TITLE")
    for info in sessions:
        title = (info.title or "(untitled)")[:50]
        typer.echo(f"{short[info.id]:<{width}}  {age(info.updated):>9}  "
                   f"{turns_text(info.turns):>10}  {directory_text(info.cwd):<{DIR_WIDTH}}  "
                   f"{info.model or '':<28}  {title}")


def _list_all_hosts(limit: int) -> None:
    from swebash_py.cli.settings import load_settings
    from swebash_py.store.ids import shortest_unique
    from swebash_py.team import reads
    from swebash_py.team.sync import connect_checked, require_url

    conn = connect_checked(require_url(load_settings()))
    try:
        sessions = reads.list_sessions(conn, limit)
        short = shortest_unique(reads.all_ids(conn))
    finally:
        conn.close()
    if not sessions:
        typer.echo("no sessions on the team store yet")
        return
    width = max(len(short[s.id]) for s in sessions)
    for s in sessions:
        title = " ".join((s.title or "(untitled)").split())[:50]
        typer.echo(f"{short[s.id]:<{width}}  {s.hostname[:20]:<20} {s.os_user[:12]:<12} "
                   f"{age(s.updated):>9}  {turns_text(s.turns):>9}  {title}")


@app.command("show")
def show(session_id: Annotated[str | None, typer.Argument(
        help="id or unique prefix; default: the latest session in this directory")] = None,
         ) -> None:
    """Print a session's transcript, paged on a terminal (with a store URL, also one
    another host started)."""
    from swebash_py.cli import transcript
    from swebash_py.cli.pager import paged

    store = _store()
    info = store.get_session(session_id) if session_id else _latest_here(store)
    remote = None if info else _remote_markdown(str(session_id))
    tty = sys.stdout.isatty()
    with paged(tty) as out:
        draw = transcript.drawer(out, tty)
        if remote is not None:
            draw(remote)
        else:
            transcript.show(store, info, draw)


def _latest_here(store: Any) -> Any:
    """The session last active in this workspace (``ai -c`` would continue it)."""
    from swebash_py.cli.settings import load_settings

    workspace = str(load_settings().workspace)
    found = store.latest_session(workspace)
    if found is None:
        typer.echo(f"ai: no session in {workspace} yet (see `ai sessions list`)", err=True)
        raise typer.Exit(1)
    return store.get_session(found)


def _remote_markdown(session_id: str) -> str:
    from swebash_py.cli.settings import load_settings
    from swebash_py.store import export as exporter
    from swebash_py.store.records import BlockRecord, SessionInfo, TurnRecord, parse_json
    from swebash_py.team.remote import fetch_for_show

    found = fetch_for_show(load_settings(), session_id)
    if found is None:
        typer.echo(f"ai: no session '{session_id}' (see `ai sessions list`)", err=True)
        raise typer.Exit(1)
    s, turns = found
    info = SessionInfo(s.id, s.title, s.created, s.updated, s.model, s.cwd, s.turns)
    records = [TurnRecord(0, t.seq, t.user_text, t.created, t.completed, t.stop_reason,
                          t.input_tokens, t.output_tokens, t.cost,
                          [BlockRecord(b["type"], b["text"], parse_json(b["json"]),
                                       b["created"]) for b in t.blocks], t.rewound)
               for t in turns]
    return exporter.to_markdown(info, records)


@app.command("delete")
def delete(session_id: str) -> None:
    """Delete a session and its turns."""
    store = _store()
    info = _resolve(store, session_id)
    store.delete_session(info.id)
    typer.echo(f"deleted {info.id}")


@app.command("export")
def export(session_id: str,
           fmt: Annotated[str, typer.Option("--format", "-f",
                                            help="markdown or json")] = "markdown") -> None:
    """Print a session as Markdown or JSON."""
    if fmt not in ("markdown", "json"):
        raise typer.BadParameter("use markdown or json", param_hint="--format")
    store = _store()
    info = _resolve(store, session_id)
    typer.echo(store.export(info.id, fmt))
