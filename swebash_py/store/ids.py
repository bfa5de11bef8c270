"""Global ids: UUIDv7 (RFC 9562), time-ordered, 74 random bits.

Sessions, turns, blocks and audit rows get one when they are recorded, so
records from many hosts never collide on the team store, and sorting by id
sorts by creation time.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

_lock = threading.Lock()
_last_ms = 0
_seq = 0


def uuid7(unix_seconds: float | None = None) -> str:
    """A new UUIDv7 as its canonical string; ``unix_seconds`` sets its time
    (for records created before ids were global). Ids made in this process
    for the same millisecond still sort in the order they were made."""
    global _last_ms, _seq
    ms = int((time.time() if unix_seconds is None else unix_seconds) * 1000)
    with _lock:
        if unix_seconds is None:
            if ms <= _last_ms:  # same (or earlier) millisecond: count up instead
                ms, _seq = _last_ms, _seq + 1
            else:
                _seq = int.from_bytes(os.urandom(2), "big") & 0x3FF  # room to count
            _last_ms = ms
            counter = _seq & 0xFFF
        else:
            counter = int.from_bytes(os.urandom(2), "big") & 0xFFF
    rand = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = ((ms & ((1 << 48) - 1)) << 80) | (0x7 << 76) | (counter << 64) | (0b10 << 62) | rand
    return str(uuid.UUID(int=value))


def short(full_id: str, length: int = 8) -> str:
    """The first ``length`` characters (the CLI widens it where two collide)."""
    return full_id[:length]


def shortest_unique(ids: list[str], minimum: int = 8) -> dict[str, str]:
    """Each id's shortest prefix (at least ``minimum`` characters) that no other
    id in ``ids`` shares."""
    out: dict[str, str] = {}
    ordered = sorted(set(ids))
    for i, full in enumerate(ordered):
        neighbours = ordered[max(i - 1, 0):i] + ordered[i + 1:i + 2]
        out[full] = unique_prefix(full, neighbours, minimum)
    return out


def unique_prefix(full: str, neighbours: list[str], minimum: int = 8) -> str:
    """``full``'s shortest prefix (at least ``minimum`` characters) that neither
    of its neighbours in sorted order shares: any other id sharing a longer prefix
    would sort between them, so those two are the only ones to look at."""
    need = minimum
    for other in neighbours:
        need = max(need, _common(full, other) + 1)
    return full[:need]


def _common(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n
