"""The agent's ``Recorder`` backed by the sessions store: each finished block is
written as it completes; the session row is created lazily on the first turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from swebash_py.engine.messages import Block, Message
from swebash_py.errors import SessionGone, StorageError

if TYPE_CHECKING:
    from swebash_py.approvals.audit import CallRecord
    from swebash_py.checkpoints.model import FileChange


class StoreRecorder:
    """Writes each finished block to the store; creates the session lazily.

    A storage failure (full disk, the session deleted by another ``ai``) does
    not stop the turn the user is watching: the first one is kept in
    ``problem`` for the caller to report as one line, and nothing more is
    written this turn.
    """

    def __init__(self, store: Any, model: str, cwd: str, session_id: str | None) -> None:
        self.store = store
        self.model = model
        self.cwd = cwd
        self.session_id: str | None = None
        self.problem: StorageError | None = None
        self._turn_id: Any = None
        self._last_turn_id: Any = None
        self._created = False
        self.resume(session_id)

    def begin_turn(self, user_text: str) -> None:
        self.problem = None
        self._created = False
        if self.session_id is None:
            self.session_id = self._safely(self.store.create_session, self.model, self.cwd)
            if self.session_id is None:
                return
            self._created = True
        self._turn_id = self._last_turn_id = self._safely(self.store.begin_turn,
                                                          self.session_id, user_text)

    def abandon_new_session(self) -> None:
        """Delete the session this turn created (the turn could not run at all)."""
        if self._created and self.session_id is not None:
            self._safely(self.store.delete_session, self.session_id)
            self.session_id = self._turn_id = self._last_turn_id = None
            self._created = False

    def add_block(self, block: Block, step: int | None = None) -> None:
        if self._turn_id is not None:
            self._safely(self.store.add_block, self._turn_id, block, step)

    def record(self, change: FileChange) -> int | None:
        """A file change of the current turn (a checkpoint for /undo)."""
        if self._turn_id is None:
            return None
        change_id = self._safely(self.store.record_change, self._turn_id, change)
        return None if change_id is None else int(change_id)

    def forget(self, change_id: int) -> None:
        self._safely(self.store.drop_change, change_id)

    def audit(self, record: CallRecord) -> None:
        """Keep one tool call's audit row (the team store's uploader sends it on)."""
        from swebash_py.store.audit import audit_row

        turn = self._turn_id if self._turn_id is not None else self._last_turn_id
        turn_uid = self._safely(self.store.turn_uid, turn) if turn is not None else None
        self._safely(self.store.add_audit, audit_row(record, self.session_id, turn_uid, self.cwd))

    def checkpoint(self, messages: list[Message]) -> None:
        """Persist a compacted history, so resuming does not compact again."""
        if self._last_turn_id is not None:
            self._safely(self.store.add_checkpoint, self._last_turn_id, messages)

    def resume(self, session_id: str | None) -> None:
        """Record into ``session_id`` from now on (None: a new session, created lazily)."""
        self.session_id = session_id
        self._turn_id = None
        self._last_turn_id = self.store.last_turn_id(session_id) if session_id else None

    def finish_turn(self, stop_reason: str, usage: dict[str, int], cost: float | None) -> None:
        if self._turn_id is not None:
            self._safely(self.store.finish_turn, self._turn_id, stop_reason,
                         usage.get("input_tokens", 0), usage.get("output_tokens", 0), cost,
                         usage.get("cache_read_tokens", 0), usage.get("cache_write_tokens", 0))
            self._turn_id = None

    def take_problem(self) -> StorageError | None:
        """The storage failure of the last turn, once; a deleted session is
        let go (the next turn starts a new one)."""
        problem, self.problem = self.problem, None
        if isinstance(problem, SessionGone):
            self.resume(None)
        return problem

    def _safely(self, write: Callable[..., Any], *args: Any) -> Any:
        if self.problem is not None:
            return None
        try:
            return write(*args)
        except StorageError as exc:
            self.problem = exc
            self._turn_id = None
            return None
