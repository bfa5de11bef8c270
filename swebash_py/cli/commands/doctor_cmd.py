"""`ai doctor`: prints the checks; exit 1 when something needed is broken."""

from __future__ import annotations

import typer

from swebash_py.cli.settings import load_settings
from swebash_py.doctor.checks import run_checks


def doctor() -> None:
    """What works here: sandbox, provider keys, paths, MCP servers."""
    from swebash_py.project.loading import resolve_project

    # a project's servers are checked only if it is trusted already: doctor never asks
    checks = run_checks(load_settings(project=lambda ws: resolve_project(ws, ask=None)))
    for check in checks:
        typer.echo(check.line())
    if any(c.status == "fail" for c in checks):
        raise typer.Exit(1)
