"""`ai -s "find files over 100MB"` and `ai --explain "tar -xzvf a.tgz"`.

``-s`` asks the model for exactly one command, shows it, and offers to
execute, edit (a pre-filled line), describe it, or abort. ``--explain``
explains a command in a few lines. Neither offers tools to the model.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any, Literal

from swebash_py.events import BlockDelta, BlockStart, BlockStop

SHELL_PROMPT = (
    "Reply with exactly one shell command for {shell} that does the following, in a single "
    "```sh fenced block, and nothing else. Task: {task}")
EXPLAIN_PROMPT = (
    "Explain this shell command in a few short lines: what it does, each flag that matters, "
    "and any risk. Command: {command}")
CHOICES = "[e]xecute / e[d]it / [D]escribe / [a]bort: "
_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.DOTALL)


def user_shell() -> str:
    """The user's own shell (for `!cmd`, `-s` and `? task`): ``$SHELL``, else sh."""
    return os.environ.get("SHELL") or "/bin/sh"


def shell_question(task: str) -> str:
    return SHELL_PROMPT.format(shell=os.path.basename(user_shell()), task=task)


def explain_question(command: str) -> str:
    return EXPLAIN_PROMPT.format(command=command)


def extract_command(answer: str) -> str | None:
    """The command in the answer's first fenced block (or the bare answer)."""
    found = _FENCE.search(answer)
    text = (found.group(1) if found else answer).strip()
    return text or None


def extract_fenced(answer: str) -> str | None:
    """The command in the answer's first fenced block; None without one (``ai
    fix``: an answer with no block says that no command fixes it)."""
    found = _FENCE.search(answer)
    return (found.group(1).strip() or None) if found else None


Choice = Literal["execute", "edit", "describe", "abort", "unclear"]
ABORTED = "aborted: nothing was run"
UNCLEAR = "answer e (execute), d (edit), D (describe) or a (abort)"


def offer(command: str, *, show: bool = True) -> tuple[Choice, str | None]:
    """Ask on the terminal what to do; returns (choice, command to run)."""
    from swebash_py.ui.terminal import ask_line, has_terminal, tell

    if not has_terminal():
        return "abort", None
    line = ask_line(f"{shown_command(command)}\n{CHOICES}" if show else CHOICES)
    action = parse_choice(line) if line is not None else "abort"  # EOF: abort
    if action in ("abort", "unclear"):
        tell(ABORTED if action == "abort" else UNCLEAR)
    if action == "edit":
        from prompt_toolkit import prompt

        edited = prompt("edit> ", default=for_command_line(command)).strip()
        return ("execute", edited) if edited else ("abort", None)
    return (action, command) if action != "abort" else ("abort", None)


def print_bare_command(command: str) -> None:
    """`ai -s` with stdout not a terminal: the command alone, so that
    `$(ai -s "...")` and `ai -s "..." > cmd.sh` get exactly the command — and the
    shell-init key binding, which puts it on the command line: sanitised first
    (bash and zsh would show an escape as ``^[``, fish would insert it raw)."""
    import sys

    clean = for_command_line(command)
    if clean != command:
        sys.stderr.write("ai: the suggested command contained control, escape or bidi "
                         "characters; they were removed\n")
    sys.stdout.write(clean.rstrip("\n") + "\n")
    sys.stdout.flush()


def for_command_line(command: str) -> str:
    """A suggestion as it may be put on a command line (printed bare, pre-filled
    for editing): ``text.sanitize.neutralize``'s, the one sanitiser — no
    escape sequence, no control character but newline and tab, no bidi."""
    from swebash_py.text.sanitize import neutralize

    return neutralize(command)


class HideAnswerText:
    """Wraps a sink and drops the answer's text blocks (the suggested command is
    shown once, as it will run, after the answer); everything else passes."""

    def __init__(self, sink: Any) -> None:
        self._sink = sink

    def handle(self, event: Any) -> None:
        if isinstance(event, BlockStart | BlockDelta | BlockStop) and event.kind == "text":
            return
        self._sink.handle(event)


def shown_command(command: str) -> str:
    """The command as it will run: controls, escapes and invisible characters spelled
    out (with a warning line when there were any), every line shown."""
    from swebash_py.ui.visible import has_hidden, make_visible

    shown = make_visible(command)
    if has_hidden(command):
        shown += ("\n! the command contains control, escape or invisible characters "
                  "(shown as \\xNN or <U+NNNN>)")
    return shown


def parse_choice(text: str) -> Choice:
    """The answer to CHOICES: e/E/execute/y, d/edit, D/describe, a/abort/n or
    an empty line (abort); anything else is unclear (ask again)."""
    choice = text.strip()
    if choice in ("e", "E", "execute", "y", "Y", "yes"):
        return "execute"
    if choice in ("d", "edit"):
        return "edit"
    if choice in ("D", "describe"):
        return "describe"
    if choice.lower() in ("", "a", "abort", "n", "no", "q"):
        return "abort"
    return "unclear"


def execute(command: str) -> int:
    """Run the command in the user's shell, attached to the terminal."""
    return subprocess.call([user_shell(), "-c", command])


# `ai fix` / `/fix`: the corrected command, then run / edit / copy / abort.
FIX_CHOICES = "[r]un / [e]dit / [c]opy / [a]bort: "
FIX_UNCLEAR = "answer r (run), e (edit), c (copy) or a (abort)"
FixChoice = Literal["run", "edit", "copy", "abort", "unclear"]


def parse_fix_choice(text: str) -> FixChoice:
    """The answer to FIX_CHOICES: r/run/y, e/edit, c/copy, a/abort/n or an empty
    line (abort); anything else is unclear (ask again)."""
    choice = text.strip().lower()
    if choice in ("r", "run", "y", "yes"):
        return "run"
    if choice in ("e", "edit"):
        return "edit"
    if choice in ("c", "copy"):
        return "copy"
    if choice in ("", "a", "abort", "n", "no", "q"):
        return "abort"
    return "unclear"


def clipboard_sequence(command: str) -> str:
    """OSC 52: the terminal itself puts ``command`` (sanitised) on the clipboard —
    no clipboard program to start, and it works over ssh and in tmux
    (``set-clipboard on``); a terminal that does not allow it ignores it."""
    import base64

    data = base64.b64encode(for_command_line(command).encode("utf-8")).decode("ascii")
    return f"\x1b]52;c;{data}\x07"


COPIED = "copied to the clipboard (if your terminal allows OSC 52)"


def offer_fix(command: str) -> str | None:
    """``ai fix`` on a terminal: ask run / edit / copy / abort until answered;
    returns the command to run in the user's shell, or None."""
    from swebash_py.ui.terminal import ask_line, has_terminal, tell
    from swebash_py.ui.visible import has_hidden

    if not has_terminal():
        return None
    if has_hidden(command):  # the rendered answer showed it; spelled out only when it hides
        tell(shown_command(command))
    while True:
        line = ask_line(FIX_CHOICES)
        action = parse_fix_choice(line) if line is not None else "abort"  # EOF: abort
        if action == "unclear":
            tell(FIX_UNCLEAR)
            continue
        if action == "copy":
            tell(clipboard_sequence(command) + COPIED)
            return None
        if action == "edit":
            from prompt_toolkit import prompt

            edited = prompt("edit> ", default=for_command_line(command)).strip()
            return edited or None
        if action == "abort":
            tell(ABORTED)
            return None
        return command
