"""Second outside audit: what a dumb terminal (Emacs M-x shell, TERM=dumb) is sent.

A dumb terminal shows escape sequences as text: the focus-report switch
(``CSI ? 1004 h/l``) that the REPL turns on around a turn must not reach it.
The twin shows the same turn on an xterm does send it (the check can fail)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import exit_repl, start_repl
from tests.fakeprovider import FakeProvider, Reply

FOCUS_ON = "\x1b[?1004h"


def _one_turn(fake_provider: FakeProvider, spawn_ai: Any, term: str) -> str:
    fake_provider.queue(Reply(text="Answer done."))
    child = start_repl(spawn_ai, fake_provider, env={"TERM": term})
    child.sendline("a question")
    child.expect("Answer done.")
    seen = child.before
    child.expect("swebash>")
    seen += child.before
    exit_repl(child)
    return seen


@pytest.mark.pty
@pytest.mark.usefixtures("isolated")
def test_dumb_terminal_gets_no_focus_report_switch(fake_provider: FakeProvider,
                                                   spawn_ai: Any) -> None:
    assert FOCUS_ON not in _one_turn(fake_provider, spawn_ai, "dumb")


@pytest.mark.pty
@pytest.mark.usefixtures("isolated")
def test_twin_xterm_gets_the_focus_report_switch(fake_provider: FakeProvider,
                                                 spawn_ai: Any) -> None:
    assert FOCUS_ON in _one_turn(fake_provider, spawn_ai, "xterm-256color")
