"""The approval question: what would happen, exactly, then the prompt line."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.render.transcript import SandboxNotes
from swebash_py.text.excerpt import excerpt
from swebash_py.ui.visible import has_hidden, make_visible

PROMPT = "Allow? [y]es / [a]lways / [n]o, or type an instruction: "
PROMPT_CHANGES = "Allow these changes? [y]es / [a]lways / [n]o, or type an instruction: "
SHORT_PROMPT = "Allow? [y/a/n] or an instruction: "
SHORT_PROMPT_CHANGES = "Allow these changes? [y/a/n] or an instruction: "
MAX_PREVIEW_LINES = 60


def prompt_for(columns: int, pending: PendingCall | None = None) -> str:
    """The answer line — about the changes after a preview, else about the
    call — short enough to leave room to type in a narrow terminal."""
    if pending is not None and pending.preview.changes is not None:
        # the contract's words down to 60 columns (they wrap), short below
        return PROMPT_CHANGES if columns >= 60 else SHORT_PROMPT_CHANGES
    return PROMPT if columns >= len(PROMPT) + 20 else SHORT_PROMPT


def question_renderable(pending: PendingCall, verdict: Verdict,
                        rule: list[str] | None) -> RenderableType:
    """Tool, full arguments (command, diff, new file), warnings, paths."""
    preview = pending.preview
    parts: list[RenderableType] = [_heading(pending)]
    if purpose := _purpose(pending):
        parts.append(Text(purpose, style="italic"))
    if preview.detail_kind == "command" and preview.detail:
        from rich.syntax import Syntax  # pygments: only when a command is shown

        parts.append(Syntax(make_visible(preview.detail), "bash", word_wrap=True,
                            background_color="default"))
        if has_hidden(preview.detail):
            parts.append(Text("! the command contains control, escape or invisible "
                              "characters (shown as \\xNN or <U+NNNN>)", style="bold red"))
    elif preview.detail_kind in ("diff", "file", "replaced") and preview.detail:
        parts.append(_Fitted(preview.detail, preview.detail_kind, preview.summary))
    elif preview.detail:
        parts.append(Text(_head(make_visible(preview.detail)), style="dim"))
    else:
        parts.append(Text(make_visible(preview.summary)))
    if preview.output is not None:
        parts.append(Text("output:", style="bold"))
        # the sandbox note once per session on screen, the question included
        shown = SandboxNotes.quiet(preview.output) if preview.output else ""
        parts.append(Text(_head(make_visible(shown or "(no output)")), style="dim"))
    if preview.changes is not None:
        parts.append(_changes_text(preview.changes))
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


def _heading(pending: PendingCall) -> Text:
    """`? write_file notes/todo.md (new file, 12 lines)`: the path on the first line."""
    preview = pending.preview
    heading = Text.assemble(("? ", "bold yellow"), (pending.tool.name, "bold"))
    if preview.changes is not None:  # after a preview: its changes are the question
        heading.append(" ran as a preview (nothing has changed yet):"
                       if preview.output is not None else ": some of its changes meet yours:")
        return heading
    if preview.detail_kind in ("diff", "file", "replaced") and preview.paths:
        heading.append(" " + make_visible(preview.summary.split(" ", 1)[-1]), style="bold")
        if preview.detail_kind == "file" and preview.detail is not None:
            heading.append(f" (new file, {_count(preview.detail)})")
        elif preview.detail_kind == "replaced" and preview.detail is not None:
            # the whole new content of a file that is there but could not be read
            heading.append(f" (replaces an unreadable file, {_count(preview.detail)})")
        heading.append(":")
        return heading
    heading.append(" wants to run:")
    return heading


def _purpose(pending: PendingCall) -> str:
    """The model's own words on what a command is for, and where it runs (the
    ``description`` and ``workdir`` of run_command): context, never the command."""
    description = getattr(pending.args, "description", None)
    workdir = getattr(pending.args, "workdir", None)
    words = [f"  {make_visible(description)}"] if isinstance(description, str) else []
    if isinstance(workdir, str):
        words.append(f"  (in {make_visible(workdir)})")
    return "".join(words)


def _count(text: str) -> str:
    lines = len(text.splitlines())
    return "1 line" if lines == 1 else f"{lines} lines"


class _Fitted:
    """A new file or a diff: whole when it fits the terminal with the question
    under it; else its head and its tail around the lines left out (never the
    head only: line 81 can be the one that matters), then where the whole of
    it was written, so it can be read before answering."""

    def __init__(self, detail: str, kind: str, summary: str) -> None:
        self._detail, self._kind, self._summary = detail, kind, summary

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(MAX_PREVIEW_LINES // 3, (options.height or console.height) - 8)
        lines = make_visible(self._detail).splitlines()
        cut = len(lines) > room
        shown = excerpt(lines, room - 1 if cut else room)
        yield _diff_text(shown) if self._kind == "diff" else _dim_lines(shown)
        if cut:
            where = _spill(self._detail, self._summary, self._kind)
            whole = "diff" if self._kind == "diff" else "file"
            yield Text(f"{len(lines)} lines in all" +
                       (f"; the whole {whole} is in:" if where else ""), style="bold")
            if where:
                yield Text(f"  {where}", overflow="fold")


def _dim_lines(lines: list[str]) -> Text:
    """A file's lines, dim; the line standing for the ones left out, bold."""
    text = Text()
    for line in lines:
        text.append(line + "\n", style="bold" if _is_between(line) else "dim")
    text.rstrip()
    return text


def _is_between(line: str) -> bool:
    return line.startswith("… lines ") and line.endswith(" …")


def _spill(text: str, summary: str, kind: str) -> str | None:
    """Write ``text`` to a private temporary file; its path, or None."""
    import os
    import re
    import tempfile

    name = re.sub(r"[^A-Za-z0-9._-]+", "_", summary.split(" ", 1)[-1])[-60:] or "preview"
    try:
        folder = tempfile.mkdtemp(prefix="swebash-preview-")
        path = os.path.join(folder, name + (".diff" if kind == "diff" else ""))
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError:
        return None
    return path


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
    """At most MAX_PREVIEW_LINES lines: the head and the tail of a longer text."""
    return "\n".join(excerpt(text.splitlines(), MAX_PREVIEW_LINES))


def _diff_text(lines: list[str]) -> Text:
    text = Text()
    for line in lines:
        style = ("bold" if _is_between(line) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
        text.append(line + "\n", style=style)
    return text


_CHANGE_STYLES = {"+": "green", "-": "red", "~": "yellow", "@": "cyan"}


def _changes_text(changes: str) -> Text:
    """The preview's summary, whole: it is bounded where it is made
    (preview.summary), and cutting it here would hide deleted names."""
    text = Text()
    for number, line in enumerate(make_visible(changes).splitlines()):
        stripped = line.lstrip()
        style = "bold" if number == 0 else _CHANGE_STYLES.get(stripped[:1], "")
        text.append(line + "\n", style=style)
    return text
