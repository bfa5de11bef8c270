"""A line typed for the REPL's prompt is never eaten by something else.

Issue #28: a line fed after `/resume` was lost. Cause: an error reported to the
event loop while the prompt was up (a task collected unfinished: the provider
pool's keep-alive task of an earlier session) reached prompt-toolkit's own
exception handler, which prints the error and waits for "Press ENTER to
continue..." — reading, and dropping, the user's next line. The REPL's prompts
leave such errors to asyncio's default handler (a log line) instead.
"""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from swebash_py.config.settings import load_settings
from swebash_py.front.invocation import Invocation
from swebash_py.repl.session import Repl
from tests.fakeprovider import FakeProvider


async def drive_with_a_loop_error(fp: FakeProvider, capsys: pytest.CaptureFixture[str],
                                  report: bool) -> str:
    """`/cost`; while the prompt waits, (``report``) an error reaches the event
    loop; then `/help` and `/exit` are typed (prompt-toolkit's "Press ENTER"
    would take the first line typed with Enter)."""
    settings = load_settings({"model": "openai/x", "api_base": fp.url})
    loop = asyncio.get_running_loop()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        repl = Repl(settings, Invocation())
        pipe.send_text("/cost\n")
        if report:
            loop.call_later(0.3, loop.call_exception_handler,
                            {"message": "Task was destroyed but it is pending!"})
        loop.call_later(0.6, pipe.send_text, "/help\r/exit\r")  # typed: Enter is CR
        assert await asyncio.wait_for(repl.run(), 20) == 0
    return capsys.readouterr().out


async def test_an_event_loop_error_at_the_prompt_does_not_eat_the_next_line(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    out = await drive_with_a_loop_error(fake_provider, capsys, report=True)
    assert "Press ENTER" not in out
    assert "Esc Enter" in out  # /help's text: the line typed after the error was read


async def test_twin_without_an_error_the_line_is_read(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    out = await drive_with_a_loop_error(fake_provider, capsys, report=False)
    assert "Esc Enter" in out
