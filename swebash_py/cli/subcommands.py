"""The typer application of the subcommands (``ai sessions|config|tools|undo|mcp``).

Questions and the REPL never come here: ``cli.main`` sends only the words in
``SUBCOMMANDS`` to this module. Every error is one ``ai: ...`` line, as a
question's are: errors we raise on purpose exit with their code, click's usage
errors (a missing argument, an unknown option) with 2, never typer's boxes.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

try:  # typer >= 0.20 carries its own click; older ones use click's
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - an older typer
    from click import exceptions as click_errors  # type: ignore[no-redef]

from swebash_py.errors import SwebashError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  context_settings={"help_option_names": ["-h", "--help"]})


@app.callback()
def _group() -> None:
    """A group even with one command registered (typer would run a lone command
    as the app itself, reading its name as an argument)."""


def _register(word: str) -> None:
    """Add the one subcommand ``word`` names (``cli.main`` sends only those in
    ``SUBCOMMANDS``): importing every command module would cost each one the
    others' imports (``undo`` pulls in the edit tools and pydantic, ~0.1 s)."""
    from importlib import import_module

    if word in GROUPS:
        module = import_module(f"swebash_py.cli.commands.{GROUPS[word]}")
        if word == "config":
            from swebash_py.cli.commands import trust_cmd

            module.app.add_typer(trust_cmd.app, name="trust")
        app.add_typer(module.app, name=word)
    elif word in COMMANDS:
        module_name, function = COMMANDS[word]
        module = import_module(f"swebash_py.cli.commands.{module_name}")
        app.command(word, context_settings=CONTEXTS.get(word))(getattr(module, function))


GROUPS = {"config": "config_cmd", "mcp": "mcp_cmd", "sessions": "sessions_cmd"}
COMMANDS = {"tools": ("tools_cmd", "tools"), "undo": ("undo_cmd", "undo"),
            "doctor": ("doctor_cmd", "doctor"), "sync": ("sync_cmd", "sync"),
            "audit": ("audit_cmd", "audit"), "shell-init": ("shell_init_cmd", "shell_init"),
            "fix": ("fix_cmd", "fix")}
CONTEXTS = {"fix": {"allow_extra_args": True,  # [N] and question flags
                    "ignore_unknown_options": True}}


def run(args: list[str]) -> None:
    """Run the subcommand in ``args``; never returns."""
    _register(args[0] if args else "")
    try:
        code = app(args=args, prog_name="ai", standalone_mode=False)
    except SwebashError as exc:
        _fail(str(exc), exc.exit_code)
    except click_errors.NoArgsIsHelpError as exc:  # `ai sessions`: what it offers
        sys.stdout.write(exc.ctx.get_help() + "\n")
        sys.exit(0)
    except click_errors.UsageError as exc:  # one `ai:` line, never typer's box
        _fail(usage_line(exc), exc.exit_code)
    except click_errors.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except typer.Abort:  # Ctrl-C / EOF at a typer prompt
        _fail("interrupted", 130)
    sys.exit(code if isinstance(code, int) else 0)


def usage_line(exc: click_errors.UsageError) -> str:
    """``sessions show: no such option: --x (see `ai sessions show --help`)``."""
    where = exc.ctx.command_path if exc.ctx is not None else "ai"
    words = where.split(" ", 1)
    command = f"{words[1]}: " if len(words) > 1 else ""
    message = " ".join(exc.format_message().split()).rstrip(".")
    return f"{command}{message[:1].lower()}{message[1:]} (see `{where} --help`)"


def _fail(message: str, code: int) -> NoReturn:
    sys.stderr.write(f"ai: {message}\n")
    sys.exit(code)
