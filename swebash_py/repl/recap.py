"""A short recap of the conversation being resumed (`ai -c`, `/resume`).

The last few exchanges: the question on one line, the answer below it, cut to
a few lines (the last answer gets more room). On a terminal the answer is
rendered as Markdown like answers are (headings, lists, code; blank lines
dropped, it is a recap); otherwise it is its plain text.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from swebash_py.engine.messages import Message, TextBlock, ToolUseBlock
from swebash_py.text.sanitize import neutralize, one_line

RECAP_TURNS = 3
LINE_CHARS = 100
LAST_ANSWER_LINES = 8  # the answer being continued from
EARLIER_ANSWER_LINES = 3
INDENT = "    "


@dataclass
class Exchange:
    question: str
    tools: list[str]
    answer: str


def exchanges(history: list[Message]) -> list[Exchange]:
    """Each user question with the tools used and the last text answered to it."""
    found: list[Exchange] = []
    for message in history:
        text = " ".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()
        if message.role == "user" and text:
            found.append(Exchange(text, [], ""))
        elif message.role == "assistant" and found:
            found[-1].tools += [b.name for b in message.blocks if isinstance(b, ToolUseBlock)]
            found[-1].answer = text or found[-1].answer
    return found


def recap(history: list[Message], turns: int = RECAP_TURNS, width: int = LINE_CHARS,
          *, rendered: bool = False) -> RenderableType | None:
    """The last ``turns`` exchanges (Markdown answers ``rendered`` for a
    terminal, plain text otherwise); None when there is nothing to show."""
    found = exchanges(history)
    if not found:
        return None
    shown = found[-turns:]
    parts: list[RenderableType] = []
    if len(found) > len(shown):
        parts.append(Text(f"… {_count(len(found) - len(shown), 'earlier turn')}", style="dim"))
    for index, exchange in enumerate(shown):
        room = LAST_ANSWER_LINES if index == len(shown) - 1 else EARLIER_ANSWER_LINES
        parts.append(Text.assemble(("you ", "bold cyan"), one_line(exchange.question, width)))
        used = f"[{', '.join(dict.fromkeys(exchange.tools))}]" if exchange.tools else ""
        answer = neutralize(exchange.answer).strip()
        if not answer:
            parts.append(Text.assemble(("ai  ", "bold"), (used + " ", "dim"), "(no answer)"))
            continue
        if used:
            parts.append(Text.assemble(("ai  ", "bold"), (used, "dim")))
        parts.append(Answer(answer, room, label=not used, rendered=rendered, width=width))
    return Group(*parts)


class Answer:
    """An answer's first ``max_lines`` non-blank lines after ``ai  `` (or indented),
    then how many more there were."""

    def __init__(self, text: str, max_lines: int, *, label: bool, rendered: bool,
                 width: int = LINE_CHARS) -> None:
        self.text = text
        self.max_lines = max_lines
        self.label = label
        self.rendered = rendered
        self.width = width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(20, min(options.max_width, self.width) - len(INDENT))
        lines = self._rendered(console, options, room) if self.rendered else self._plain(room)
        lines = [line for line in lines if line.plain.strip()]
        for number, line in enumerate(lines[:self.max_lines]):
            first = number == 0 and self.label
            prefix = ("ai  ", "bold") if first else INDENT
            yield Text.assemble(prefix, line, no_wrap=True, overflow="crop")
        if len(lines) > self.max_lines:
            yield Text(f"{INDENT}… {_count(len(lines) - self.max_lines, 'more line')}", style="dim")

    def _rendered(self, console: Console, options: ConsoleOptions, room: int) -> list[Text]:
        from swebash_py.render.md import FastMarkdown

        rows = console.render_lines(FastMarkdown(self.text), options.update_width(room),
                                    pad=False)
        return [_text(row) for row in rows]

    def _plain(self, room: int) -> list[Text]:
        return [Text(line if len(line) <= room else line[:room - 1] + "…")
                for line in self.text.splitlines()]


def _text(row: list[Segment]) -> Text:
    text = Text()
    for segment in row:
        if not segment.control:
            text.append(segment.text, segment.style)
    text.rstrip()
    return text


def _count(n: int, noun: str) -> str:
    """``1 earlier turn``, ``2 earlier turns``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
