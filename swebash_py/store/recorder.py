"""The agent's ``Recorder`` backed by the sessions store: each finished block is
written as it completes; the session row is created lazily on the first turn."""

from __future__ import annotations

from typing import Any

from swebash_py.checkpoints.model import FileChange
from swebash_py.engine.messages import Block, Message


class StoreRecorder:
    """Writes each finished block to the store; creates the session lazily."""

    def __init__(self, store: Any, model: str, cwd: str, session_id: str | None) -> None:
        self.store = store
        self.model = model
        self.cwd = cwd
        self.session_id: str | None = None
        self._turn_id: Any = None
        self._last_turn_id: Any = None
        self.resume(session_id)

    def begin_turn(self, user_text: str) -> None:
        if self.session_id is None:
            self.session_id = self.store.create_session(self.model, self.cwd)
        self._turn_id = self._last_turn_id = self.store.begin_turn(self.session_id, user_text)

    def add_block(self, block: Block) -> None:
        if self._turn_id is not None:
            self.store.add_block(self._turn_id, block)

    def record(self, change: FileChange) -> int | None:
        """A file change of the current turn (a checkpoint for /undo)."""
        if self._turn_id is None:
            return None
        return int(self.store.record_change(self._turn_id, change))

    def forget(self, change_id: int) -> None:
        self.store.drop_change(change_id)

    def checkpoint(self, messages: list[Message]) -> None:
        """Persist a compacted history, so resuming does not compact again."""
        if self._last_turn_id is not None:
            self.store.add_checkpoint(self._last_turn_id, messages)

    def resume(self, session_id: str | None) -> None:
        """Record into ``session_id`` from now on (None: a new session, created lazily)."""
        self.session_id = session_id
        self._turn_id = None
        self._last_turn_id = self.store.last_turn_id(session_id) if session_id else None

    def finish_turn(self, stop_reason: str, usage: dict[str, int], cost: float | None) -> None:
        if self._turn_id is not None:
            self.store.finish_turn(self._turn_id, stop_reason, usage.get("input_tokens", 0),
                                   usage.get("output_tokens", 0), cost,
                                   usage.get("cache_read_tokens", 0),
                                   usage.get("cache_write_tokens", 0))
            self._turn_id = None
