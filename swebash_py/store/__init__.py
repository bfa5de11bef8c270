"""The sessions database (SQLite): sessions, turns and their blocks."""

from __future__ import annotations

from swebash_py.store.faults import health_check
from swebash_py.store.records import BlockRecord, SessionInfo, SessionUsage, TurnRecord
from swebash_py.store.sessions import AmbiguousSession, Store, default_path

__all__ = [
    "AmbiguousSession",
    "BlockRecord",
    "SessionInfo",
    "SessionUsage",
    "Store",
    "TurnRecord",
    "default_path",
    "health_check",
]
