"""``--json``: every turn event as one JSON line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from swebash_py.events import TurnEvent


class JsonRenderer:
    """Writes ``event.to_json()`` one per line to ``stream`` and flushes."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def handle(self, event: TurnEvent) -> None:
        self._stream.write(event.to_json() + "\n")
        self._stream.flush()

    def close(self) -> None:
        self._stream.flush()

    @contextmanager
    def suspend(self) -> Iterator[None]:
        yield
