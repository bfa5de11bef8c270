"""Esc Enter inserts a new line, also when it was typed before prompt-toolkit took
the terminal: the cooked terminal turned its CR into LF (ICRNL), so the prompt
reads ESC LF (`escape`, `c-j`) instead of ESC CR."""

from __future__ import annotations

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from swebash_py.repl.session import _key_bindings


@pytest.mark.parametrize("typed", ["line one\x1b\rline two\r",  # typed at the prompt
                                   "line one\x1b\nline two\n"])  # typed ahead, cooked tty
def test_escape_enter_makes_a_new_line(typed: str) -> None:
    with create_pipe_input() as pipe:
        pipe.send_text(typed)
        session: PromptSession[str] = PromptSession(
            input=pipe, output=DummyOutput(), key_bindings=_key_bindings())
        assert session.prompt("> ") == "line one\nline two"
