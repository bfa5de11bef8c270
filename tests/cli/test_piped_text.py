"""The piped one-shot's text writer: PlainRenderer's output exactly, rich only when needed."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
from typing import Any

import pytest
from rich.console import Console

from swebash_py.cli.piped_text import QUIET_STOPS, PipedText
from swebash_py.events import (
    ApprovalEvent,
    BlockDelta,
    BlockStart,
    BlockStop,
    ErrorEvent,
    Notice,
    PreviewEvent,
    ToolProgress,
    TurnComplete,
    TurnStart,
    UsageEvent,
)
from swebash_py.render import make_renderer
from swebash_py.render.lines import stop_reason_line


def text(index: int, *chunks: str) -> list[Any]:
    return [BlockStart(index, "text"), *(BlockDelta(index, "text", c) for c in chunks),
            BlockStop(index, "text")]


TOOL_CALL = [BlockStart(1, "tool_use", "c1", "read_file"),
             BlockDelta(1, "tool_use", '{"path": "a"}'),
             BlockStop(1, "tool_use", call_id="c1", tool="read_file", input={"path": "a"}),
             ApprovalEvent("c1", "read_file", "allow", "mode"),
             ToolProgress("c1", "read_file", "running"),
             BlockStop(2, "tool_result", "1\thello\n", call_id="c1", tool="read_file")]

STREAMS = {
    "plain answer": [TurnStart("m"), *text(0, "Hel", "lo \x1b[31mthere", "."),
                     UsageEvent(3, 4), TurnComplete("stop")],
    "thinking first": [TurnStart("m"), BlockStart(0, "thinking"),
                       BlockDelta(0, "thinking", "hmm"), BlockStop(0, "thinking"),
                       *text(1, "Yes.\n"), TurnComplete("stop")],
    "a tool after text": [TurnStart("m"), *text(0, "Let me look."), *TOOL_CALL,
                          *text(3, "It says hello"), TurnComplete("stop")],
    "notes and errors": [TurnStart("m"), Notice("stdin was cut"), *text(0, "par"),
                         Notice("a retry"), *text(1, "tial"), ErrorEvent("boom"),
                         TurnComplete("error")],
    "cut off": [TurnStart("m"), *text(0, "a long"), TurnComplete("length")],
    "too many rounds": [*text(0, "x\n"), TurnComplete("max_iterations")],
    "denied": [*text(0, "try"), BlockStop(1, "tool_use", call_id="c", tool="run_command",
                                           input={"command": "rm -rf x"}),
               ApprovalEvent("c", "run_command", "deny", "no-terminal", "no terminal"),
               PreviewEvent("c", "run_command", "discarded", summary="1 file"),
               TurnComplete("stop")],
}


def plain_output(events: list[Any]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(Console(file=out), plain=True, status=Console(file=err))
    for event in events:
        renderer.handle(event)
    renderer.close()
    return out.getvalue(), err.getvalue()


def piped_output(events: list[Any]) -> tuple[str, str, bool]:
    out, err = io.StringIO(), io.StringIO()
    writer = PipedText(out, err)
    for event in events:
        writer.handle(event)
    writer.close()
    return out.getvalue(), err.getvalue(), writer._real is not None


@pytest.mark.parametrize("name", list(STREAMS))
def test_the_same_output_as_the_plain_renderer(name: str) -> None:
    out, err, _ = piped_output(STREAMS[name])
    assert (out, err) == plain_output(STREAMS[name])


def test_a_text_answer_needs_no_renderer() -> None:
    assert piped_output(STREAMS["plain answer"])[2] is False
    assert piped_output(STREAMS["thinking first"])[2] is False
    assert piped_output(STREAMS["a tool after text"])[2] is True


def test_the_twin_a_line_glued_to_the_text_would_be_caught() -> None:
    """Without ending the answer's line before a status line, stdout would differ."""
    out, err, _ = piped_output(STREAMS["a tool after text"])
    assert out == "Let me look.\nIt says hello\n"
    assert "read_file" in err


@pytest.mark.parametrize("reason", QUIET_STOPS)
def test_quiet_stops_have_no_line(reason: str) -> None:
    assert stop_reason_line(reason) is None


def piped_modules(fake_url: str, *args: str,
                  env: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """The answer on stdout, and the top-level packages imported, of a piped one-shot."""
    code = ("import sys\nfrom swebash_py.cli.main import main\n"
            "try:\n    main(['-m', 'openai/x', '--api-base', sys.argv[1], *sys.argv[2:]])\n"
            "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
            "print(sorted({m.split('.')[0] for m in sys.modules}), file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code, fake_url, *args],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})}, check=True)
    return result.stdout, list(ast.literal_eval(result.stderr.strip().splitlines()[-1]))


def test_a_piped_answer_never_imports_rich(fake_provider: Any) -> None:
    for args in (["--no-tools", "hi"], ["hi"]):
        fake_provider.queue(_reply())
        out, loaded = piped_modules(fake_provider.url, *args)
        assert out == "fine\n"
        assert "rich" not in loaded and "litellm" not in loaded and "mcp" not in loaded
        assert "psycopg" not in loaded


def test_the_twin_forced_colour_renders_with_rich(fake_provider: Any) -> None:
    """The check sees rich when it is imported: FORCE_COLOR makes rich draw the answer."""
    fake_provider.queue(_reply())
    out, loaded = piped_modules(fake_provider.url, "--no-tools", "hi",
                                env={"FORCE_COLOR": "1"})
    assert "fine" in out and "rich" in loaded


def _reply() -> Any:
    from tests.fakeprovider import Reply

    return Reply(text="fine")
