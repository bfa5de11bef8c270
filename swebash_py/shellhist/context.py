"""What the model is shown of the user's shell: the last commands, and a failure to fix.

Every question from a terminal with recorded history carries its last ``LAST``
commands (line, exit status, directory), marked as the user's own shell history
so the model reads "that" in "run that again with sudo" and does not take them
for its own actions.
"""

from __future__ import annotations

from swebash_py.shellhist.store import Entry, read_history

LAST = 10

FIX_INSTRUCTION = """\
My last failed shell command is below. Explain in at most 3 sentences why it failed, \
then give exactly one corrected command for {shell} in a single ```sh fenced block \
(the command alone, one line if possible). If no command can fix it, say so plainly \
and give no block. You may investigate with your tools first (read the files it names, \
`--help`, `which`), under the usual rules. Re-running it in the sandbox tells you little \
when it reads standard input, needs a terminal, or talks to the network: those cannot \
run meaningfully there, so explain from what you have.

<failed_command>
command: {line}
exit status: {status}
directory: {cwd}{duration}
</failed_command>"""


def history_block(entries: list[Entry], last: int = LAST) -> str | None:
    """The ``<shell_history>`` block of the last commands (None when there are none)."""
    shown = entries[-last:]
    if not shown:
        return None
    from swebash_py.text.sanitize import neutralize

    rows = [f"[exit {e.status}] {neutralize(e.cwd)}$ {neutralize(e.line)}" for e in shown]
    return ("<shell_history>\nThe user's own last commands in this terminal (their shell, "
            "not yours), oldest first:\n" + "\n".join(rows) + "\n</shell_history>")


def enabled() -> bool:
    """``[shell_init] history`` (on by default)."""
    from swebash_py.config.settings import load_settings

    return bool(load_settings().shell_init.history)


def recent_block(history_on: bool) -> str | None:
    """This terminal's history block for a question, when history is on."""
    return history_block(read_history()) if history_on else None


def with_history(question: str, history_on: bool) -> str:
    """``question`` with this terminal's recent commands after it (as piped stdin is)."""
    block = recent_block(history_on)
    return f"{question}\n\n{block}" if block else question


def fix_question(entry: Entry, shell: str) -> str:
    from swebash_py.text.sanitize import neutralize

    duration = f"\nduration: {entry.duration:.1f}s" if entry.duration is not None else ""
    return FIX_INSTRUCTION.format(shell=shell, line=neutralize(entry.line), status=entry.status,
                                  cwd=neutralize(entry.cwd), duration=duration)
