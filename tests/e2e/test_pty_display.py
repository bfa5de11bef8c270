"""What the screen shows when a user interrupts or types while an answer streams.

The installed `ai` runs in a pty; everything it writes is replayed through a
real terminal emulator (pyte), and the test reads the final screen as a user
would.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pexpect
import pyte
import pytest

from tests.fakeprovider import FakeProvider, Reply

pytestmark = pytest.mark.pty

ROWS, COLS = 40, 100
ANSWER = "".join(f"Line {i:02d} of the **answer** text.\n\n" for i in range(40))


def screen(log: io.StringIO) -> list[str]:
    """Scrollback plus screen, as a user would read it (trailing blanks dropped)."""
    term = pyte.HistoryScreen(COLS, ROWS, history=5000)
    pyte.Stream(term).feed(log.getvalue())
    rows = [*term.history.top, *(term.buffer[y] for y in range(ROWS))]
    lines = ["".join(row[x].data for x in range(COLS)).rstrip() for row in rows]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def start_repl(fp: FakeProvider, spawn_ai: Any, env: dict[str, str] | None = None
               ) -> tuple[pexpect.spawn, io.StringIO]:
    child = spawn_ai("-m", "openai/x", "--api-base", fp.url, env=env)
    log = io.StringIO()
    child.logfile_read = log
    child.expect("swebash>")
    return child, log


def answer_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if re.fullmatch(r"Line \d\d of the answer text\.", line)]


def test_ctrl_c_while_streaming_shows_each_line_once(fake_provider: FakeProvider,
                                                     spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text=ANSWER, chunk_size=5, delay=0.01))
    child, log = start_repl(fake_provider, spawn_ai)
    child.sendline("hello")
    child.expect("Line 12")
    child.sendcontrol("c")
    child.expect("cancelled")
    child.expect("swebash>")
    lines = screen(log)
    shown = answer_lines(lines)
    assert shown, lines
    assert len(shown) == len(set(shown)), lines  # no line of the answer printed twice
    assert "cancelled" in lines  # on a line of its own: no "^Ccancelled"
    assert not any("^C" in line for line in lines)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def test_typing_while_streaming_leaves_no_fragment(fake_provider: FakeProvider,
                                                   spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text=ANSWER, chunk_size=5, delay=0.005))
    child, log = start_repl(fake_provider, spawn_ai)
    child.sendline("hello")
    child.expect("Line 05")
    child.send("typed ahead")
    child.expect("Line 39")
    child.expect("swebash>")
    child.expect("typed ahead")  # the keys are kept for the next prompt
    lines = screen(log)
    shown = answer_lines(lines)
    assert shown == [f"Line {i:02d} of the answer text." for i in range(40)], lines
    typed = [i for i, line in enumerate(lines) if "typed ahead" in line]
    assert len(typed) == 1, lines  # no stale fragment above the answer
    assert lines[typed[0]].startswith("swebash> ")
    assert typed[0] > lines.index(shown[-1])
    child.sendcontrol("c")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def test_no_color_on_a_terminal_still_renders_markdown(fake_provider: FakeProvider,
                                                       spawn_ai: Any) -> None:
    text = "# Ports\n\nPort **8080** is free.\n\n| port | state |\n|---|---|\n| 8080 | free |\n"
    fake_provider.queue(Reply(text=text, chunk_size=4))
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url, "ports?",
                     env={"NO_COLOR": "1"})
    log = io.StringIO()
    child.logfile_read = log
    child.expect(pexpect.EOF)
    out = log.getvalue()
    lines = screen(log)
    assert any("Port 8080 is free." in line for line in lines), lines
    assert "**" not in "\n".join(lines) and "|---|" not in "\n".join(lines)
    assert not re.search(r"\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])[;m]", out)  # no colour


def test_a_provider_error_message_cannot_drive_the_terminal(fake_provider: FakeProvider) -> None:
    from tests.e2e.conftest import run_ai
    from tests.fakeprovider import ErrorReply

    evil = "bad request \x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b]0;pwned\x07 (model)"
    fake_provider.queue(ErrorReply(400, message=evil))
    done = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi")
    assert done.returncode == 1
    assert "bad request" in done.stderr and "(model)" in done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr


def test_the_twin_the_fake_provider_does_send_the_escapes(fake_provider: FakeProvider) -> None:
    """The check above can fail: the raw error body carries the sequences."""
    import httpx

    from tests.fakeprovider import ErrorReply

    fake_provider.queue(ErrorReply(400, message="bad \x1b]52;c;eA==\x07"))
    reply = httpx.post(fake_provider.url + "/chat/completions", json={"model": "m"})
    assert "\x1b]52" in reply.json()["error"]["message"]
