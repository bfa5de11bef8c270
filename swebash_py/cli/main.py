"""Entry point of ``ai`` / ``swebash``: the one front door.

In order: ``--version`` and ``--help`` are answered without importing
anything heavy (start-up is a feature); the words in ``SUBCOMMANDS`` go to
the typer application in ``cli.subcommands``; everything else is a question
(or the REPL), parsed by ``cli.args`` (argparse), whose renderer ``front.warmup``
queues for a background import (let go once the request is out), and run by
``cli.oneshot`` (or ``repl.session``) inside this module's error boundary: one
``ai: ...`` line for errors we raise on purpose (traceback with ``--debug``),
130 on Ctrl-C, 143 / 129 on SIGTERM / SIGHUP (``stopsignals``), 0 (quietly,
``cli.pipes``) when the reader of our output has gone.
"""

from __future__ import annotations

import os
import sys

from swebash_py import __version__
from swebash_py.cli.helptext import top_level_help

TYPE_CHECKING = False  # not `typing`'s: `ai --version` does not import typing
SUBCOMMANDS = ("config", "sessions", "tools", "undo", "doctor", "mcp", "sync",
               "audit", "shell-init", "fix")  # the words typer handles

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings
    from swebash_py.front.invocation import Invocation


def main(argv: list[str] | None = None) -> None:
    """Run the program; exits with the contract's exit codes."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        _print_version()
        return
    if args in (["--help"], ["-h"], ["help"]):  # `ai help` is not a question
        sys.stdout.write(top_level_help(_prog()))
        return
    from swebash_py.front import startup_gc

    startup_gc.relax()  # until the session is built (build.build_session)
    # pydantic scans every installed package's entry points for plugins at
    # import (~10 ms); this program uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if args and args[0] in SUBCOMMANDS:
        from swebash_py.cli.subcommands import run

        run(args)
    sys.exit(_ask(args))


def _prog() -> str:
    """`ai` or `swebash`, as called."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "ai"
    return "swebash" if name == "swebash" else "ai"


def _print_version() -> None:
    print(f"swebash-py {__version__}")


def _ask(args: list[str]) -> int:
    """Parse a question's arguments and run it; returns the exit code."""
    if "-h" in args or "--help" in args:  # before parsing: help even with bad flags
        sys.stdout.write(top_level_help(_prog()))
        return 0
    from swebash_py import stopsignals
    from swebash_py.cli.args import parse_question_args
    from swebash_py.errors import SwebashError

    stopsignals.install()  # before the early prompt: SIGHUP there must exit 129 too
    try:
        invocation = parse_question_args(args)
    except SwebashError as exc:
        sys.stderr.write(f"ai: {exc}\nTry 'ai --help' for help.\n")
        return exc.exit_code
    if invocation.show_version:
        _print_version()
        return 0
    _start_warmup(invocation)
    if not invocation.question and not (invocation.json_output or invocation.shell_mode
                                        or invocation.explain):
        from swebash_py.front import early_prompt

        early_prompt.show()  # the REPL, most likely: be visibly ready at once
    return run_guarded(invocation)


def _start_warmup(invocation: Invocation) -> None:
    """Begin importing what this invocation will draw its answer with (nothing for
    JSON lines or a bare ``-s`` command, which rich does not draw)."""
    from swebash_py.front import warmup

    if invocation.json_output:
        return
    if not invocation.question and sys.stdin.isatty():
        warmup.start((*warmup.REPL, warmup.warm_markdown))  # go: repl.session
    elif not _stdout_is_terminal():
        if not invocation.shell_mode:
            warmup.start(warmup.PLAIN)
    else:
        warmup.start((*warmup.RENDERED, warmup.warm_markdown))


def _stdout_is_terminal() -> bool:
    """What rich's Console will decide (FORCE_COLOR / TTY_COMPATIBLE=1 say yes)."""
    if "FORCE_COLOR" in os.environ or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    try:
        return sys.stdout.isatty()
    except ValueError:  # closed
        return False


def run_guarded(invocation: Invocation) -> int:
    """Execute ``invocation`` inside the error boundary; returns the exit code."""
    import contextlib
    import traceback

    from swebash_py import stopsignals
    from swebash_py.errors import SwebashError

    stopsignals.install()
    try:
        return stopsignals.exit_code(execute(invocation))
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            sys.stderr.write(f"\n{stopsignals.describe()}\n")
        return stopsignals.exit_code(130)
    except BrokenPipeError:  # the reader of our output went away: end quietly
        from swebash_py.cli.pipes import quiet_broken_pipe

        return quiet_broken_pipe()
    except SwebashError as exc:
        from swebash_py.front import early_prompt

        early_prompt.hand_over()
        if invocation.debug:
            traceback.print_exc()
        from swebash_py.engine.secrets import redact_userinfo
        from swebash_py.text.sanitize import neutralize  # the message may quote a provider

        sys.stderr.write(f"ai: {neutralize(redact_userinfo(str(exc)))}\n")
        return exc.exit_code


def _warm_for(settings: Settings, invocation: Invocation) -> None:
    """Once the model is known: litellm when it serves the model, what tool calls
    need when tools are offered (after the renderer's modules, if a warm-up runs)."""
    from swebash_py.front import warmup
    from swebash_py.provider.routing import route

    if route(settings.resolved_model, settings.api_base, settings.backend).backend == "litellm":
        warmup.add(*warmup.LITELLM)
    if not invocation.no_tools:
        warmup.add(*warmup.TOOLS)


def _hand_over_prompt() -> None:
    """Take the early plain prompt down (before a question prints on the terminal)."""
    from swebash_py.front import early_prompt

    early_prompt.hand_over()


def _refuse_unknown_model(settings: Settings) -> None:
    """A model no backend can serve (``nosuch/thing``) is said at once (exit 1, as
    litellm's refusal was), not after a litellm import (provider.modelnames; unsure
    cases only warn there)."""
    from swebash_py.errors import ModelNotFound
    from swebash_py.provider.modelnames import model_problem

    if not settings.model:
        return  # none configured: said where it is needed
    problem = model_problem(settings.model, settings.api_base, settings.backend)
    if problem is not None and problem[0] == "refuse":
        raise ModelNotFound(problem[1])


def execute(invocation: Invocation) -> int:
    """Run what the invocation asks for (REPL, ``-s``, one-shot); returns the exit code."""
    import asyncio

    from swebash_py.cli.oneshot import run_oneshot, run_shell_helper
    from swebash_py.cli.settings import load_settings
    from swebash_py.cli.stdin import compose_question, read_piped
    from swebash_py.errors import UsageError
    from swebash_py.project.loading import project_decider

    settings = load_settings(invocation.setting_flags(),
                             project=project_decider(invocation.trust, _hand_over_prompt))
    _refuse_unknown_model(settings)
    _warm_for(settings, invocation)
    piped = read_piped()
    question = compose_question(invocation.question, piped)
    if question:  # this terminal's last commands, as context (as piped stdin is)
        from swebash_py.shellhist.context import with_history

        question = with_history(question, settings.shell_init.history)
    if not question:
        if sys.stdin.isatty() and not invocation.json_output:
            from swebash_py.repl.session import run_repl

            return run_repl(settings, invocation)
        raise UsageError("nothing to ask: give a question, or pipe some input")
    notes = [note] if piped and (note := piped.note()) else []
    if invocation.explain:
        from swebash_py.front.shell_helper import explain_question

        invocation.no_tools = True
        question = explain_question(question)
    if invocation.shell_mode:
        return run_shell_helper(settings, invocation, question, notes)
    return asyncio.run(run_oneshot(settings, invocation, question, notes))
