"""The approval question: what would happen, exactly, then the prompt line."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.text import Text

from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.ui.visible import has_hidden, make_visible

PROMPT = "Allow? [y]es / [a]lways / [n]o, or type an instruction: "
MAX_PREVIEW_LINES = 60


def question_renderable(pending: PendingCall, verdict: Verdict,
                        rule: list[str] | None) -> RenderableType:
    """Tool, full arguments (command, diff, new file), warnings, paths."""
    preview = pending.preview
    parts: list[RenderableType] = [
        Text.assemble(("? ", "bold yellow"), (pending.tool.name, "bold"), " wants to run:")]
    if preview.detail_kind == "command" and preview.detail:
        from rich.syntax import Syntax  # pygments: only when a command is shown

        parts.append(Syntax(make_visible(preview.detail), "bash", word_wrap=True,
                            background_color="default"))
        if has_hidden(preview.detail):
            parts.append(Text("! the command contains control, escape or invisible "
                              "characters (shown as \\xNN or <U+NNNN>)", style="bold red"))
    elif preview.detail_kind == "diff" and preview.detail:
        parts.append(_diff_text(preview.detail))
    elif preview.detail:
        parts.append(Text(_head(make_visible(preview.detail)), style="dim"))
    else:
        parts.append(Text(make_visible(preview.summary)))
    if preview.outside:
        paths = make_visible(", ".join(str(p) for p in preview.paths))
        parts.append(Text(f"! outside the workspace: {paths}", style="yellow"))
    for warning in _warnings(pending, verdict):
        parts.append(Text(f"! {make_visible(warning)}", style="bold red"))
    if rule:
        parts.append(Text(f"  [a]lways remembers: {make_visible(', '.join(rule))}",
                          style="dim"))
    else:
        parts.append(Text("  [a]lways runs it once: no rule can safely cover this call",
                          style="dim"))
    return Group(*parts)


def _warnings(pending: PendingCall, verdict: Verdict) -> list[str]:
    """Each warning once (the policy repeats the preview's), the outside-workspace
    ones left to their own line above."""
    seen = dict.fromkeys([*pending.preview.warnings, *verdict.warnings])
    if pending.preview.outside:
        return [w for w in seen if not w.startswith("outside the workspace")]
    return list(seen)


def show_question(console: Console, pending: PendingCall, verdict: Verdict,
                  rule: list[str] | None) -> None:
    console.print(question_renderable(pending, verdict, rule))


def _head(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= MAX_PREVIEW_LINES:
        return text
    hidden = len(lines) - MAX_PREVIEW_LINES
    return "\n".join([*lines[:MAX_PREVIEW_LINES], f"… {hidden} more lines ({len(text):,} chars)"])


def _diff_text(diff: str) -> Text:
    text = Text()
    for line in _head(make_visible(diff)).splitlines():
        style = ("green" if line.startswith("+") else "red" if line.startswith("-")
                 else "cyan" if line.startswith("@@") else "")
        text.append(line + "\n", style=style)
    return text
