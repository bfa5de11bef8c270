"""`ai undo`: revert the file changes of the last turn in this workspace's latest session."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated

import typer

from swebash_py.checkpoints.flow import Ask
from swebash_py.cli.settings import load_settings


def _tty_ask() -> Ask | None:
    """An asker on /dev/tty (the one door: typed-ahead keys are dropped first);
    None when there is no terminal."""
    from swebash_py.ui.terminal import ask_line, has_terminal

    if not has_terminal():
        return None

    async def ask(question: str) -> bool:
        from swebash_py.checkpoints.flow import is_yes

        line = await asyncio.to_thread(ask_line, question)
        return is_yes(line or "")

    return ask


def undo(yes: Annotated[bool, typer.Option("-y", "--yes",
                                           help="Do it without asking (files changed since "
                                                "are left alone).")] = False) -> None:
    """Revert the file changes of the last turn here, showing the diff and asking first."""
    from swebash_py.checkpoints.flow import last_turn, take_back
    from swebash_py.store.opening import open_store

    settings = load_settings()
    store = open_store()
    try:
        session_id = store.latest_session(str(settings.workspace))
        back = last_turn(store, session_id) if session_id else None
        if back is None:
            typer.echo(f"nothing to undo: no file changes recorded in {settings.workspace}")
            return
        ask = None if yes else _tty_ask()
        if ask is None and not yes:
            typer.echo("ai: undo asks before it changes files and there is no terminal to ask "
                       "on: rerun with --yes", err=True)
            raise typer.Exit(1)
        typer.echo(f"Undo the file changes of {back.title} (session {session_id}):")
        outcome = asyncio.run(take_back(store, back, settings.workspace,
                                        lambda text: typer.echo(text), ask))
    finally:
        store.close()
    if outcome is None:
        typer.echo("nothing undone")
        raise typer.Exit(1)
    sys.stdout.flush()
    if outcome.skipped or outcome.failed:
        raise typer.Exit(1)
