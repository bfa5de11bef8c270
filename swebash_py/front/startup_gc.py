"""The cycle collector's pace while the program starts.

Start-up makes ~100k objects that live as long as the process (modules, classes,
functions, settings). With the default threshold the collector scans the young
ones ~70 times while they are made and finds next to nothing (~4 ms of a one-shot
answer). ``relax`` lets it wait; ``settle``, once the session is built, freezes
what start-up made (later collections never scan it again) and restores the
usual pace.
"""

from __future__ import annotations

import gc

STARTUP_THRESHOLD = 100_000  # young objects made before a collection, while starting
_usual = gc.get_threshold()


def relax() -> None:
    """Collect rarely until ``settle``."""
    gc.set_threshold(STARTUP_THRESHOLD, *_usual[1:])


def settle() -> None:
    """Start-up is done: freeze what it made and collect at the usual pace again."""
    if gc.get_threshold()[0] == STARTUP_THRESHOLD:
        gc.freeze()
        gc.set_threshold(*_usual)
