"""What the status lines say, stdlib only: the terminal renderer styles these
words (``render.lines``, ``render.tools_view``, ``render.diff``), the plain one
(``render.plain``, for pipes, which imports no rich) prints them as they are.

One owner for the words: a note changed here reads the same in both outputs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from swebash_py.events import ApprovalEvent
from swebash_py.render.transcript import command_failed
from swebash_py.text.excerpt import head_tail
from swebash_py.text.sanitize import neutralize, one_line
from swebash_py.text.truncate import split_cut

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.MULTILINE)
_STOP_NOTES = {
    "length": "(the answer was cut off: the model hit its output token limit)",
    "max_iterations": "(stopped: too many tool rounds in one turn)",
}
_ARG_KEYS = ("command", "cmd", "path", "file_path", "pattern", "query", "url", "name")
_PREVIEW_HEADS = {"applied": "changes applied", "discarded": "changes discarded",
                  "over-bound": "preview stopped at its bound"}


def short_args(tool: str, args: dict[str, Any] | None, limit: int = 60) -> str:
    """A one-line summary of a call's arguments: ``ls -la``, ``src/app.py``."""
    if not args:
        return ""
    for key in _ARG_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return one_line(value, limit)
    for value in args.values():
        if isinstance(value, str) and value:
            return one_line(value, limit)
    return one_line(json.dumps(args, ensure_ascii=False, default=str), limit)


def looks_like_diff(text: str | None) -> bool:
    """True for unified-diff text (a ``@@ -a,b +c,d @@`` hunk header is required)."""
    return bool(text) and _HUNK.search(text or "") is not None


def stop_note(reason: str) -> str | None:
    """Why an answer ended early, when it did (None for a normal stop)."""
    return _STOP_NOTES.get(reason)


def notice_text(message: str) -> str:
    return one_line(message, 500)


def error_text(message: str) -> str:
    return "Error: " + one_line(message, 500)


def preview_text(outcome: str, summary: str, *, full: bool) -> str | None:
    """A command preview's outcome: its change list when ``full``, else one line."""
    if outcome == "no-changes":
        return None
    head = _PREVIEW_HEADS.get(outcome, outcome)
    lines = summary.splitlines()
    if not full:
        return f"preview: {head} ({one_line(lines[0] if lines else '', 200)})"
    body = "\n".join(neutralize(line)[:500] for line in lines)
    return f"preview: {head}\n{body}"


def approval_text(event: ApprovalEvent, args: str = "") -> tuple[str, str] | None:
    """``("✓ allowed by rule run_command(git status)", "")``, the second part the
    rules a user's answer remembered (``" · remembered ..."``) or empty; None when
    routine or denied (the call's own result line says a denial, once)."""
    tool = one_line(event.tool, 80)
    call = f"{tool}({args})" if args else tool
    if event.decision != "allow" or event.by == "mode":
        return None
    by = "you" if event.by == "user" else event.by
    remembered = ""
    if event.by == "user" and "remembered " in (event.reason or ""):
        rules = (event.reason or "").split("remembered ", 1)[1]
        remembered = f" · remembered {one_line(rules, 120)}"
    return f"✓ allowed by {by} {call}", remembered


def hidden_text(count: int, indent: str = "  ") -> str:
    return f"{indent}… {count} lines hidden …"


def shortened_note(cut: int) -> str:
    """What a result shown whole says when the model saw it shortened."""
    return f"(the model saw a shortened version: {cut:,} lines cut from the middle)"


def output_lines(body: str, max_lines: int, cut_lines: int = 0) -> tuple[list[str], int, list[str]]:
    """Untrusted output, neutralized, as (head, lines hidden, tail) around what is
    left out (``cut_lines``: lines already cut from the middle of ``body``)."""
    lines = neutralize(body).rstrip("\n").split("\n")
    if lines == [""]:
        return [], 0, []
    head, hidden, tail = head_tail(lines, max_lines)
    if cut_lines and not hidden:
        head, tail = lines[:(len(lines) + 1) // 2], lines[(len(lines) + 1) // 2:]
    return head, hidden + cut_lines, tail


def diff_lines(diff: str, max_lines: int) -> tuple[list[str], int, list[str]]:
    """A unified diff, neutralized, as (head, lines hidden, tail)."""
    return head_tail(neutralize(diff).rstrip("\n").split("\n"), max_lines)


@dataclass(frozen=True)
class ResultShape:
    """What a finished tool's line shows, decided once for both renderers:
    ``ok`` (✓ or ✗); ``error``, a call that failed, in one line (no body);
    else ``body`` (a diff when ``diff``), ``cut`` lines already cut from its
    middle, and ``model_cut`` lines the model did not get (a note)."""

    ok: bool
    error: str | None = None
    body: str = ""
    diff: bool = False
    cut: int = 0
    model_cut: int = 0


def result_shape(content: str, *, is_error: bool, display: str | None) -> ResultShape:
    shown = display if display is not None else content
    if not is_error and command_failed(content):  # ran, and exited non-zero: it says why
        return ResultShape(False, body=split_cut(shown)[0] or "")
    if is_error:
        return ResultShape(False, error=one_line(content, 200) or "failed")
    body, cut = split_cut(shown)
    model_cut = cut if display is None else split_cut(content)[1]
    return ResultShape(True, body=body or "", diff=looks_like_diff(body), cut=cut,
                       model_cut=model_cut)
