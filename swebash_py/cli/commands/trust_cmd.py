"""`ai config trust list|revoke|add`: folders whose ``.swebash/`` settings count."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from swebash_py.project import trust

app = typer.Typer(help="Trusted project folders (.swebash/ settings).", no_args_is_help=True,
                  add_completion=False)


@app.command("list")
def list_folders() -> None:
    """Every remembered answer: trusted or declined."""
    answers = trust.answers()
    if not answers:
        typer.echo(f"no folders trusted or declined yet ({trust.store_path()})")
    for folder, answer in sorted(answers.items()):
        typer.echo(f"{answer:<9} {folder}")


@app.command("revoke")
def revoke(folder: Annotated[str, typer.Argument(help="a folder, as listed")] = ".") -> None:
    """Forget the answer about FOLDER (default: here); it is asked about again."""
    if not trust.revoke(folder):
        typer.echo(f"ai: {folder} is not in the list (ai config trust list)", err=True)
        raise typer.Exit(1)
    typer.echo(f"forgot {folder}")


@app.command("add")
def add(folder: Annotated[str, typer.Argument(help="a project folder")] = ".") -> None:
    """Trust FOLDER (default: here) without being asked."""
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        typer.echo(f"ai: {path} is not a folder", err=True)
        raise typer.Exit(1)
    trust.remember(path, "trusted")
    typer.echo(f"trusted {path}")
