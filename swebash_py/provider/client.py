"""The one streaming entry point the agent uses: route, then retry."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable

from swebash_py.events import ProviderEvent
from swebash_py.provider.base import Backend, ChatRequest
from swebash_py.provider.retry import RetryPolicy, stream_with_retry
from swebash_py.provider.routing import Route, route


class ProviderClient:
    """Picks a backend per request (the model may change mid-session) and retries."""

    def __init__(self, backend_setting: str = "auto", policy: RetryPolicy | None = None,
                 on_retry: Callable[[str], None] = lambda _note: None, *,
                 connect_timeout: float | None = None,
                 stream_idle_timeout: float | None = None) -> None:
        self.backend_setting = backend_setting
        self.policy = policy or RetryPolicy()
        self.on_retry = on_retry
        self.connect_timeout = connect_timeout
        self.stream_idle_timeout = stream_idle_timeout
        self._backends: dict[Route, Backend] = {}

    def route_for(self, model: str, api_base: str | None) -> Route:
        return route(model, api_base, self.backend_setting)

    def backend_for(self, model: str, api_base: str | None) -> Backend:
        chosen = self.route_for(model, api_base)
        if chosen not in self._backends:
            self._backends[chosen] = _make_backend(chosen)
        return self._backends[chosen]

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        backend = self.backend_for(request.model, request.api_base)
        if self.connect_timeout is not None:
            request = dataclasses.replace(request, connect_timeout=self.connect_timeout)
        if self.stream_idle_timeout is not None:
            request = dataclasses.replace(request, stall_timeout=self.stream_idle_timeout)
        return stream_with_retry(backend, request, self.policy, self.on_retry)


def _make_backend(chosen: Route) -> Backend:
    if chosen.backend == "direct":
        from swebash_py.provider.direct import DirectBackend

        return DirectBackend(chosen.wire or "openai")
    from swebash_py.provider.litellm_backend import LiteLLMBackend

    return LiteLLMBackend()
