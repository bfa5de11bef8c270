"""Entry point of ``ai`` / ``swebash``.

``--version`` and the top-level ``--help`` are answered here without
importing anything heavy (start-up is a feature); everything else goes to
the typer application in ``swebash_py.app``.
"""

from __future__ import annotations

import os
import sys

from swebash_py import __version__
from swebash_py.helptext import TOP_LEVEL_HELP


def main(argv: list[str] | None = None) -> None:
    """Run the program; exits with the contract's exit codes."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        print(f"swebash-py {__version__}")
        return
    if args in (["--help"], ["-h"]):
        sys.stdout.write(TOP_LEVEL_HELP)
        return
    # pydantic scans every installed package's entry points for plugins at
    # import (~10 ms); this program uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if not _wants_typer(args):
        sys.exit(_ask(args))
    from swebash_py.app import run

    run(args)


def _wants_typer(args: list[str]) -> bool:
    """Subcommands and help go to typer; questions take the fast parser."""
    from swebash_py.app_names import SUBCOMMANDS

    return bool(args) and (args[0] in SUBCOMMANDS or "-h" in args or "--help" in args)


def _ask(args: list[str]) -> int:
    """Parse a question's arguments and run it; returns the exit code."""
    from swebash_py import stopsignals
    from swebash_py.errors import SwebashError
    from swebash_py.fastargs import parse_question_args
    from swebash_py.guarded import run_guarded

    stopsignals.install()  # before the early prompt: SIGHUP there must exit 129 too

    try:
        invocation = parse_question_args(args)
    except SwebashError as exc:
        sys.stderr.write(f"ai: {exc}\nTry 'ai --help' for help.\n")
        return exc.exit_code
    if not invocation.question and not (invocation.json_output or invocation.shell_mode
                                        or invocation.explain):
        from swebash_py import early_prompt

        early_prompt.show()  # the REPL, most likely: be visibly ready at once
    return run_guarded(invocation)
