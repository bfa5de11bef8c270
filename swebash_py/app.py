"""The typer application: parses arguments, calls a service, prints errors.

``ai QUESTION...`` and ``ai`` (the REPL) share one default command; the
words ``sessions``, ``config`` and ``tools`` in first position are
subcommands. Errors we raise on purpose become one line and exit 1 (with the
traceback under ``--debug``); Ctrl-C exits 130.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from swebash_py.app_names import APPROVAL_MODES, SUBCOMMANDS
from swebash_py.errors import SwebashError
from swebash_py.helptext import TOP_LEVEL_HELP

DEFAULT_COMMAND = "ask"


class _DefaultCommandGroup(TyperGroup):
    """Routes anything that is not a subcommand to the default command."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] in self.commands and args[0] != DEFAULT_COMMAND:
            return super().resolve_command(ctx, args)
        return DEFAULT_COMMAND, self.commands[DEFAULT_COMMAND], args

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(TOP_LEVEL_HELP)


app = typer.Typer(cls=_DefaultCommandGroup, add_completion=False, no_args_is_help=False,
                  context_settings={"ignore_unknown_options": True,
                                    "allow_extra_args": True,
                                    "help_option_names": ["-h", "--help"]})


@app.callback(invoke_without_command=True)
def _root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        ctx.invoke(ask)


@app.command(DEFAULT_COMMAND, hidden=True, context_settings={"help_option_names": ["-h", "--help"]})
def ask(
    question: Annotated[list[str] | None, typer.Argument(show_default=False)] = None,
    model: Annotated[str | None, typer.Option("-m", "--model")] = None,
    api_base: Annotated[str | None, typer.Option("--api-base")] = None,
    approval: Annotated[str | None, typer.Option("--approval")] = None,
    yes: Annotated[bool, typer.Option("-y", "--yes")] = False,
    json_output: Annotated[bool, typer.Option("--json")] = False,
    continue_last: Annotated[bool, typer.Option("-c", "--continue")] = False,
    session: Annotated[str | None, typer.Option("--session")] = None,
    no_tools: Annotated[bool, typer.Option("--no-tools")] = False,
    shell: Annotated[bool, typer.Option("-s", "--shell")] = False,
    explain: Annotated[bool, typer.Option("--explain")] = False,
    debug: Annotated[bool, typer.Option("--debug")] = False,
    trust: Annotated[bool, typer.Option("--trust")] = False,
) -> None:
    """Answer QUESTION once, or start the REPL when there is none."""
    from swebash_py.invocation import Invocation

    if approval is not None and approval not in APPROVAL_MODES:
        raise typer.BadParameter(f"'{approval}' is not one of strict, ask, auto-edit, yolo",
                                 param_hint="--approval")
    if yes:
        approval = "yolo"
    invocation = Invocation(
        question=" ".join(question or []).strip(), model=model, api_base=api_base,
        approval=approval, json_output=json_output, continue_last=continue_last,
        session=session, no_tools=no_tools, shell_mode=shell, explain=explain, debug=debug,
        trust=trust)
    _run_guarded(invocation)


def _run_guarded(invocation: Any) -> None:
    from swebash_py.guarded import run_guarded

    raise typer.Exit(run_guarded(invocation))


def _register_subcommands() -> None:
    from swebash_py.commands import config_cmd, mcp_cmd, sessions_cmd, tools_cmd, trust_cmd

    config_cmd.app.add_typer(trust_cmd.app, name="trust")
    app.add_typer(config_cmd.app, name="config")
    app.add_typer(mcp_cmd.app, name="mcp")
    app.add_typer(sessions_cmd.app, name="sessions")
    app.command("tools")(tools_cmd.tools)


def run(args: list[str]) -> None:
    """Run the application on ``args``; never returns."""
    if args and args[0] in SUBCOMMANDS:  # their imports are skipped for a question
        _register_subcommands()
    try:
        app(args=args, prog_name="ai", standalone_mode=True)
    except SwebashError as exc:  # raised by a subcommand
        sys.stderr.write(f"ai: {exc}\n")
        sys.exit(exc.exit_code)
