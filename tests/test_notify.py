"""Notifications: when to ring (the terminal known to be unfocused; a turn that
took long enough, or a question), what is written, and the focus watch on a
real pseudo-terminal (reports read with echo off, other keys kept)."""

from __future__ import annotations

import asyncio
import io
import os
import termios

import pytest

from swebash_py.ui.focus import FocusWatch
from swebash_py.ui.notify import (
    DISABLE_FOCUS_REPORTS,
    ENABLE_FOCUS_REPORTS,
    FocusTracker,
    Notifier,
    should_notify,
    signal_bytes,
)


@pytest.mark.parametrize(("kind", "elapsed", "focused", "enabled", "rings"), [
    ("turn", 12.0, False, True, True),
    ("turn", 10.0, False, True, True),  # the threshold itself counts
    ("turn", 9.9, False, True, False),  # quick turns never ring
    ("turn", 60.0, True, True, False),  # the user is looking
    ("turn", 60.0, None, True, False),  # cannot tell: stay quiet
    ("turn", 60.0, False, False, False),  # notify = false
    ("question", 0.0, False, True, True),
    ("question", 0.0, True, True, False),
    ("question", 0.0, None, True, False),
    ("question", 0.0, False, False, False),
])
def test_decision(kind: str, elapsed: float, focused: bool | None, enabled: bool,
                  rings: bool) -> None:
    assert should_notify(kind, elapsed, 10.0, focused, enabled) is rings  # type: ignore[arg-type]


def test_bytes_written() -> None:
    assert signal_bytes("bell", "anything") == "\a"
    assert signal_bytes("osc9", "done") == "\x1b]9;done\x07"
    # The message cannot end the OSC early or smuggle another sequence.
    assert signal_bytes("osc9", "a\x07b\x1b]0;x\nc") == "\x1b]9;ab]0;xc\x07"


def test_notifier_writes_only_when_it_should() -> None:
    out, tracker = io.StringIO(), FocusTracker()
    notifier = Notifier(out, tracker, threshold=10.0, method="osc9")
    assert not notifier.turn_ended(30.0)  # focus unknown
    tracker.feed(b"\x1b[O")
    assert not notifier.turn_ended(3.0)
    assert notifier.turn_ended(30.0)
    assert notifier.question_waiting()
    assert out.getvalue() == ("\x1b]9;swebash: the answer is ready\x07"
                              "\x1b]9;swebash: a question is waiting for you\x07")


def test_tracker_takes_reports_out_of_typed_keys() -> None:
    tracker = FocusTracker()
    assert tracker.feed(b"ls\x1b[O -l") == b"ls -l"
    assert tracker.focused is False
    assert tracker.feed(b"\x1b[") == b""  # a report cut between two reads
    assert tracker.feed(b"Ix") == b"x"
    assert tracker.focused is True
    assert tracker.feed(b"\x1b[A") == b"\x1b[A"  # an arrow key is a key


async def test_focus_watch_on_a_pty() -> None:
    master, slave = os.openpty()
    out = io.StringIO()
    try:
        before = termios.tcgetattr(slave)
        watch = FocusWatch(FocusTracker(), fd=slave, out=out)
        watch.start()
        assert out.getvalue() == ENABLE_FOCUS_REPORTS
        assert not termios.tcgetattr(slave)[3] & termios.ECHO  # a report never shows
        os.write(master, b"\x1b[Ohi")
        while watch.tracker.focused is not False:
            await asyncio.sleep(0.01)
        with watch.paused():
            assert termios.tcgetattr(slave) == before  # a question gets the terminal as it was
        watch.stop()
        assert out.getvalue().endswith(DISABLE_FOCUS_REPORTS)
        assert termios.tcgetattr(slave) == before
        assert watch.take_typed() == "hi"
        assert watch.tracker.focused is False
    finally:
        os.close(master)
        os.close(slave)


async def test_focus_watch_does_nothing_without_a_terminal() -> None:
    read, write = os.pipe()
    out = io.StringIO()
    try:
        watch = FocusWatch(FocusTracker(), fd=read, out=out)
        watch.start()
        watch.stop()
        assert out.getvalue() == ""
        assert watch.tracker.focused is None
    finally:
        os.close(read)
        os.close(write)
