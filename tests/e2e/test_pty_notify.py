"""REPL notifications in a real pty: a focus-out report during a turn makes its
end ring (OSC 9 here); without one nothing is written; keys typed during the
turn (the reports taken out) reach the next prompt."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.e2e.conftest import start_repl
from tests.fakeprovider import FakeProvider, Reply

READY = "\x1b]9;swebash: the answer is ready\x07"


def _turn(fake_provider: FakeProvider, spawn_ai: Any, isolated: Path, typed: str) -> str:
    """One REPL turn during which ``typed`` reaches the terminal; returns what
    was written from the question to the next prompt."""
    (isolated / "config.toml").write_text('notify_after = 0\nnotify_method = "osc9"\n')
    gate = threading.Event()
    fake_provider.queue(Reply(text="Answer done.", gate=gate))
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("a question")
    fake_provider.wait_for_requests(1)
    child.expect_exact("\x1b[?1004h")  # the watch is on: focus reports asked for
    child.send(typed)
    gate.set()
    child.expect_exact("\x1b[?1004l")
    seen = child.before
    child.expect("swebash>")
    return seen + child.before + child.after + _rest(child)


def _rest(child: pexpect.spawn) -> str:
    """The prompt line as drawn so far (typeahead lands there)."""
    try:
        child.expect("echo-me", timeout=5)
        return "echo-me"
    except pexpect.TIMEOUT:
        return ""


@pytest.mark.pty
def test_unfocused_long_turn_rings(fake_provider: FakeProvider, spawn_ai: Any,
                                   isolated: Path) -> None:
    out = _turn(fake_provider, spawn_ai, isolated, "\x1b[Oecho-me")
    assert READY in out
    assert "^[[O" not in out  # the report was never echoed
    assert out.endswith("echo-me")  # the keys typed meanwhile wait at the prompt


@pytest.mark.pty
def test_focused_or_unknown_stays_quiet(fake_provider: FakeProvider, spawn_ai: Any,
                                        isolated: Path) -> None:
    out = _turn(fake_provider, spawn_ai, isolated, "\x1b[O\x1b[Iecho-me")
    assert READY not in out
    assert "\a" not in out
