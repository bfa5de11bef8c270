"""`ai fix [N]`: why this terminal's N-th last failed command failed, and one
corrected command.

A one-shot question with tools under the usual rules (re-running the command is
a previewed, asked ``run_command`` like any other), with a fix-oriented
instruction (``shellhist.context.FIX_INSTRUCTION``). On a terminal the answer
is shown, then the corrected command and run / edit / copy / abort (run: in
the user's shell, as ``ai -s`` executes); piped (the shell-init key binding)
only the bare, sanitised command. The question flags (``-m``, ``--api-base``,
``--approval`` ...) work as for a question.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from swebash_py.errors import SwebashError, UsageError

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings
    from swebash_py.front.invocation import Invocation

NO_HISTORY = ("no shell history for this terminal: add the line of `ai shell-init bash|zsh|fish` "
              "to your shell's startup file and start a new shell")
HISTORY_OFF = "shell history is off ([shell_init] history = false)"


class NothingToFix(SwebashError):
    """No failed command recorded: not a usage error, nothing went wrong either."""

    exit_code = 1


def fix(ctx: typer.Context) -> None:
    """Explain this terminal's last failed command (or the N-th last: `ai fix 2`)
    and offer one corrected command: run, edit, copy or abort (piped: the bare
    command). Takes the question's flags (-m, --api-base, --approval ...)."""
    sys.exit(run_fix(list(ctx.args)))


def run_fix(args: list[str]) -> int:
    """Parse ``[N] [question flags]``, ask, offer; returns the exit code."""
    import os

    from swebash_py import stopsignals
    from swebash_py.cli.args import parse_question_args
    from swebash_py.cli.settings import load_settings
    from swebash_py.project.loading import project_decider
    from swebash_py.shellhist.context import fix_question, with_history
    from swebash_py.shellhist.store import failed, read_history, terminal_id

    stopsignals.install()
    invocation = parse_question_args(args)
    nth = _nth(invocation.question)
    settings = load_settings(invocation.setting_flags(),
                             project=project_decider(invocation.trust))
    if not settings.shell_init.history:
        raise UsageError(HISTORY_OFF)
    term = terminal_id()
    if term is None:
        raise UsageError(NO_HISTORY)
    entry = failed(read_history(term), nth)
    if entry is None:
        raise NothingToFix("no failed command in this terminal's history"
                           + (f" (asked for the {nth}th last)" if nth > 1 else ""))
    shell = os.path.basename(os.environ.get("SHELL") or "sh")
    question = with_history(fix_question(entry, shell), True)
    try:
        return stopsignals.exit_code(_ask_and_offer(settings, invocation, question))
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{stopsignals.describe()}\n")
        return stopsignals.exit_code(130)
    except BrokenPipeError:
        from swebash_py.cli.pipes import quiet_broken_pipe

        return quiet_broken_pipe()
    except SwebashError as exc:  # as cli.main's boundary: the message may quote a provider
        from swebash_py.engine.secrets import redact_userinfo
        from swebash_py.text.sanitize import neutralize

        sys.stderr.write(f"ai: {neutralize(redact_userinfo(str(exc)))}\n")
        return exc.exit_code


def _nth(words: str) -> int:
    if not words.strip():
        return 1
    if words.strip().isdigit() and int(words) > 0:
        return int(words)
    raise UsageError(f"ai fix takes a number (the N-th last failed command), not '{words}'")


def _ask_and_offer(settings: Settings, invocation: Invocation, question: str) -> int:
    """The one-shot turn, then the corrected command: offered on a terminal,
    printed bare otherwise (nothing more with ``--json``: the events say it)."""
    import asyncio

    from swebash_py.cli.oneshot import run_oneshot
    from swebash_py.front import shell_helper

    bare = not (sys.stdout.isatty() and sys.stdin.isatty()) and not invocation.json_output
    answer: list[str] = []
    code = asyncio.run(run_oneshot(settings, invocation, question, [], collect=answer,
                                   show="nothing" if bare else "all"))
    if code:
        return code
    text = "".join(answer)
    command = shell_helper.extract_fenced(text)
    if not command:  # the model says no command fixes it: that is the answer
        if bare:
            from swebash_py.text.sanitize import neutralize

            sys.stderr.write(f"ai: no corrected command: {neutralize(text.strip())}\n")
        return 1
    if invocation.json_output:
        return 0
    if bare:
        shell_helper.print_bare_command(command)
        return 0
    chosen = shell_helper.offer_fix(command)
    return shell_helper.execute(chosen) if chosen else 0
