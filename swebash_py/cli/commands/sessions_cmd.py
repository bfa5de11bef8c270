"""`ai sessions list|show ID|delete ID|export ID`."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer

app = typer.Typer(help="Stored conversations.", no_args_is_help=True, add_completion=False)


def _store() -> Any:
    from swebash_py.build import open_store

    return open_store()


def _resolve(store: Any, session_id: str) -> Any:
    info = store.get_session(session_id)
    if info is None:
        typer.echo(f"ai: no session '{session_id}' (see `ai sessions list`)", err=True)
        raise typer.Exit(1)
    return info


def age(timestamp: float, now: float | None = None) -> str:
    """'3m ago', '2h ago', '5d ago'."""
    seconds = max(0.0, (now or time.time()) - timestamp)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def turns_text(n: int) -> str:
    """'1 turn', '3 turns'."""
    return f"{n} turn" if n == 1 else f"{n} turns"


LIST_COLUMNS = ("ID", "UPDATED", "TURNS", "MODEL", "TITLE")


@app.command("list")
def list_(limit: Annotated[int, typer.Option("-n", "--limit")] = 20) -> None:
    """Newest first, one line each: id, updated, turns, model, title."""
    sessions = _store().list_sessions(limit)
    if not sessions:
        typer.echo("no sessions yet")
        return
    width = max(len(info.id) for info in sessions)
    if sys.stdout.isatty():  # piped (`| awk '{print $1}'`), every line is a session
        typer.echo(f"{'ID':<{width}}  {'UPDATED':>9}  {'TURNS':>9}  {'MODEL':<28}  TITLE")
    for info in sessions:
        title = (info.title or "(untitled)")[:50]
        typer.echo(f"{info.id:<{width}}  {age(info.updated):>9}  {turns_text(info.turns):>9}  "
                   f"{info.model:<28}  {title}")


@app.command("show")
def show(session_id: str) -> None:
    """Print a session's transcript."""
    store = _store()
    info = _resolve(store, session_id)
    text = store.export(info.id, "markdown")
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
    else:
        typer.echo(text)


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
