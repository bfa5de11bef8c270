"""The typer application of the subcommands (``ai sessions|config|tools|undo|mcp``).

Questions and the REPL never come here: ``cli.main`` sends only the words in
``SUBCOMMANDS`` to this module. Errors we raise on purpose become one line
and exit with their code.
"""

from __future__ import annotations

import sys

import typer

from swebash_py.errors import SwebashError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  context_settings={"help_option_names": ["-h", "--help"]})


def _register_subcommands() -> None:
    from swebash_py.cli.commands import (
        audit_cmd,
        config_cmd,
        doctor_cmd,
        fix_cmd,
        mcp_cmd,
        sessions_cmd,
        shell_init_cmd,
        sync_cmd,
        tools_cmd,
        trust_cmd,
        undo_cmd,
    )

    config_cmd.app.add_typer(trust_cmd.app, name="trust")
    app.add_typer(config_cmd.app, name="config")
    app.add_typer(mcp_cmd.app, name="mcp")
    app.add_typer(sessions_cmd.app, name="sessions")
    app.command("tools")(tools_cmd.tools)
    app.command("undo")(undo_cmd.undo)
    app.command("doctor")(doctor_cmd.doctor)
    app.command("sync")(sync_cmd.sync)
    app.command("audit")(audit_cmd.audit)
    app.command("shell-init")(shell_init_cmd.shell_init)
    app.command("fix", context_settings={"allow_extra_args": True,  # [N] and question flags
                                         "ignore_unknown_options": True})(fix_cmd.fix)


def run(args: list[str]) -> None:
    """Run the subcommand in ``args``; never returns."""
    _register_subcommands()
    try:
        app(args=args, prog_name="ai", standalone_mode=True)
    except SwebashError as exc:
        sys.stderr.write(f"ai: {exc}\n")
        sys.exit(exc.exit_code)
