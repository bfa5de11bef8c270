"""A stop signal inside a ``held()`` section (msgspec converting the settings)
takes effect at the section's end, not inside it: raised from within msgspec's
callbacks it crashed the process (SIGSEGV at the REPL's start instead of 129)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from swebash_py import stopsignals
from swebash_py.config.table import Table


@pytest.fixture
def stop_signals() -> Iterator[None]:
    saved = {signum: signal.getsignal(signum) for signum in stopsignals.STOP_SIGNALS}
    stopsignals.install()
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        stopsignals.reset()


SEEN: list[int] = []  # values whose check ran to its end


class _Hangs(Table):
    """A table whose own check gets a SIGHUP while msgspec converts it."""

    value: int = 1

    def __post_init__(self) -> None:
        os.kill(os.getpid(), signal.SIGHUP)  # the handler runs at the next bytecode
        SEEN.append(self.value)


def test_a_stop_signal_inside_the_conversion_exits_after_it(stop_signals: Any) -> None:
    SEEN.clear()
    with pytest.raises(SystemExit) as stopped:
        _Hangs.from_data({"value": 7})
    assert stopped.value.code == 129
    assert SEEN == [7]  # the check ran to its end: msgspec was not broken into


def test_the_twin_outside_a_held_section_it_breaks_in_at_once(stop_signals: Any) -> None:
    """Without ``held`` the handler raises inside msgspec's callback, before the
    check's last line (what crashed the process)."""
    import msgspec

    SEEN.clear()
    with pytest.raises(SystemExit) as stopped:
        msgspec.convert({"value": 7}, _Hangs)
    assert stopped.value.code == 129
    assert SEEN == []


def test_nested_sections_wait_for_the_outermost(stop_signals: Any) -> None:
    reached = []
    with pytest.raises(SystemExit) as stopped, stopsignals.held():
        with stopsignals.held():
            os.kill(os.getpid(), signal.SIGTERM)
            reached.append("inner")
        reached.append("outer")
    assert stopped.value.code == 143
    assert reached == ["inner", "outer"]
    assert stopsignals.received() == signal.SIGTERM


def test_a_held_section_without_a_signal_changes_nothing(stop_signals: Any) -> None:
    with stopsignals.held():
        pass
    assert stopsignals.received() is None
    assert _Table.from_data({"value": 3}).value == 3


class _Table(Table):
    value: int = 1
