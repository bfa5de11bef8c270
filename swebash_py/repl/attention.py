"""The REPL's notifications: focus is watched while a turn runs; a turn that
ends late, or a question that waits, rings when the terminal is not focused."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from swebash_py.config.settings import Settings
from swebash_py.ui.focus import FocusWatch
from swebash_py.ui.notify import FocusTracker, Notifier


class Attention:
    def __init__(self, settings: Settings, prompt_input: Any = None) -> None:
        self.tracker = FocusTracker()
        self.notifier = Notifier(sys.stdout, self.tracker, settings.notify,
                                 settings.notify_after, settings.notify_method)
        live = (settings.notify and sys.stdout.isatty() and sys.stdin.isatty()
                and os.environ.get("TERM") != "dumb")  # it would show the switch as text
        self.watch = FocusWatch(self.tracker) if live else None
        self._input = prompt_input

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Around a turn: watch focus; at its end, ring if it was long and unseen."""
        began = time.monotonic()
        if self.watch is not None:
            self.watch.start()
        try:
            yield
        finally:
            if self.watch is not None:
                self.watch.stop()
                self._hand_back(self.watch.take_typed())
            self.notifier.turn_ended(time.monotonic() - began)

    @contextlib.contextmanager
    def question(self) -> Iterator[None]:
        """Around a question: ring if unseen, and let the question read the terminal."""
        self.notifier.question_waiting()
        with self.watch.paused() if self.watch is not None else contextlib.nullcontext():
            yield

    def discard_typed(self) -> None:
        """Forget the keys the watch kept for the next prompt (a question is
        drawn: what was typed before it answers nothing, here or later)."""
        if self.watch is not None:
            self.watch.take_typed()

    def _hand_back(self, typed: str) -> None:
        """Keys typed during the turn go to the next prompt, as if typed there."""
        if not typed or self._input is None:
            return
        from prompt_toolkit.input.typeahead import store_typeahead
        from prompt_toolkit.input.vt100_parser import Vt100Parser

        presses: list[Any] = []
        parser = Vt100Parser(presses.append)
        parser.feed(typed)
        parser.flush()
        store_typeahead(self._input, presses)
