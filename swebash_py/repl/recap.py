"""A short recap of the conversation being resumed (`ai -c`, `/resume`)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from swebash_py.engine.messages import Message, TextBlock, ToolUseBlock
from swebash_py.render.sanitize import one_line

RECAP_TURNS = 3
LINE_CHARS = 100


def recap(history: list[Message], turns: int = RECAP_TURNS,
          width: int = LINE_CHARS) -> RenderableType | None:
    """The last ``turns`` exchanges, one line for the question and one for the
    answer (with the tools it used); None when there is nothing to show."""
    exchanges: list[tuple[str, list[str], str]] = []
    for message in history:
        text = " ".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()
        if message.role == "user" and text:
            exchanges.append((text, [], ""))
        elif message.role == "assistant" and exchanges:
            question, tools, answer = exchanges[-1]
            tools += [b.name for b in message.blocks if isinstance(b, ToolUseBlock)]
            exchanges[-1] = (question, tools, text or answer)
    if not exchanges:
        return None
    shown = exchanges[-turns:]
    lines: list[RenderableType] = []
    if len(exchanges) > len(shown):
        lines.append(Text(f"… {len(exchanges) - len(shown)} earlier turns", style="dim"))
    for question, tools, answer in shown:
        lines.append(Text.assemble(("you ", "bold cyan"), one_line(question, width)))
        used = f"[{', '.join(dict.fromkeys(tools))}] " if tools else ""
        lines.append(Text.assemble(("ai  ", "bold"), (used, "dim"),
                                   one_line(answer, width) or "(no answer)"))
    return Group(*lines)
