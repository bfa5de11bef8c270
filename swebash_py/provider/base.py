"""What every backend takes and gives: a ``ChatRequest`` in, provider events out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from swebash_py.engine.messages import Message
from swebash_py.events import ProviderEvent


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class ChatRequest:
    """One request to a model."""

    model: str
    messages: list[Message]
    system: str | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    temperature: float | None = None
    max_tokens: int | None = None
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = 600.0
    stall_timeout: float = 120.0  # stream_idle_timeout: longest wait for one complete event
    connect_timeout: float = 10.0
    context_window: int | None = None  # what the conversation is fitted to (provider.local)


class Backend(Protocol):
    """A streaming client for one family of providers."""

    name: str

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Send the request and yield events as the reply streams.

        Raises ``ProviderError`` subclasses; never retries (see ``retry``).
        """
        ...
