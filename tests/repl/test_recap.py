"""The resume recap: Markdown answers rendered on a terminal, plain text
otherwise, each cut to a few lines."""

from __future__ import annotations

import io

from rich.console import Console

from swebash_py.engine.messages import Message, TextBlock, ToolUseBlock
from swebash_py.repl.recap import LAST_ANSWER_LINES, recap

ANSWER = ("## Ports in use\n\nPort **8080** is held by `nginx`:\n\n- pid 4242\n"
          "- user *www-data*\n\n```bash\nsudo ss -ltnp | grep 8080\n```\n")


def shown(history: list[Message], *, rendered: bool) -> list[str]:
    console = Console(file=io.StringIO(), width=80, color_system=None)
    renderable = recap(history, rendered=rendered)
    assert renderable is not None
    console.print(renderable)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def exchange(question: str, answer: str, *tools: str) -> list[Message]:
    uses = [ToolUseBlock(f"t{i}", name, {}) for i, name in enumerate(tools)]
    return [Message("user", [TextBlock(question)]),
            Message("assistant", [TextBlock(answer), *uses])]


def test_a_terminal_sees_the_answer_rendered() -> None:
    lines = shown(exchange("who holds port 8080?", ANSWER), rendered=True)
    assert lines[0] == "you who holds port 8080?"
    assert lines[1] == "ai  Ports in use"
    assert "    Port 8080 is held by nginx:" in lines
    assert any(line.strip() == "• pid 4242" for line in lines)
    assert any(line.strip() == "sudo ss -ltnp | grep 8080" for line in lines)
    text = "\n".join(lines)
    for marker in ("##", "**", "`", "- pid", "*www"):
        assert marker not in text  # no Markdown source left


def test_without_a_terminal_the_answer_is_its_text() -> None:
    lines = shown(exchange("who holds port 8080?", ANSWER), rendered=False)
    assert lines[:3] == ["you who holds port 8080?", "ai  ## Ports in use",
                         "    Port **8080** is held by `nginx`:"]
    assert "    ```bash" in lines and "    - pid 4242" in lines


def test_answers_are_cut_and_earlier_ones_more() -> None:
    long = "\n\n".join(f"line {n}" for n in range(1, 21))  # 20 paragraphs
    history = [*exchange("first", long, "read_file", "read_file"), *exchange("second", long)]
    for rendered in (True, False):
        lines = shown(history, rendered=rendered)
        first = lines[lines.index("you first") + 1:lines.index("you second")]
        assert first[:3] == ["ai  [read_file]", "    line 1", "    line 2"]
        assert len(first) == 5 and first[-1] == "    … 17 more lines"
        second = lines[lines.index("you second") + 1:]
        assert len(second) == LAST_ANSWER_LINES + 1
        assert second[-1] == f"    … {20 - LAST_ANSWER_LINES} more lines"


def test_escape_sequences_in_a_stored_answer_are_not_replayed() -> None:
    lines = shown(exchange("hi", "plain \x1b]0;owned\x07words\x1b[2J"), rendered=True)
    assert lines[1] == "ai  plain words"


def test_earlier_turns_are_counted_in_good_english() -> None:
    from swebash_py.repl.recap import RECAP_TURNS

    def first_line(count: int) -> str:
        history = [m for n in range(count) for m in exchange(f"q{n}", f"a{n}")]
        return shown(history, rendered=False)[0]

    assert first_line(RECAP_TURNS + 1) == "… 1 earlier turn"  # was "1 earlier turns"
    assert first_line(RECAP_TURNS + 2) == "… 2 earlier turns"
