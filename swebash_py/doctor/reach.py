"""Does the provider answer? One models-list request: no tokens are spent.

A key that is set says nothing about a server that is down, an ``api_base``
with a typo or a proxy in the way; the models list is the cheapest request
every OpenAI-compatible server, Anthropic and Ollama answer. The URL and the
headers are the ones the direct backend sends its requests with (the same
base, the same key variable), so what doctor reaches is what a question reaches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

REACH_TIMEOUT = 5.0  # seconds: doctor is run by a user who waits for it
_OLLAMA = ("ollama", "ollama_chat")

Verdict = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Probe:
    """The models-list request for a model (None when doctor cannot form one)."""

    url: str
    headers: dict[str, str]


def probe_for(model: str, api_base: str | None) -> Probe | None:
    """The request to send, from the model's wire format and the api_base."""
    from swebash_py.provider.direct import ANTHROPIC_BASE, ANTHROPIC_VERSION, OPENAI_BASE
    from swebash_py.provider.routing import wire_of

    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider in _OLLAMA:
        base = (api_base or "http://localhost:11434").rstrip("/")
        return Probe(f"{base}/api/tags", {})
    wire = wire_of(model, api_base) or ("openai" if api_base else None)
    if wire == "anthropic":
        base = (api_base or ANTHROPIC_BASE).rstrip("/")
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if key := os.environ.get("ANTHROPIC_API_KEY"):
            headers["x-api-key"] = key
        return Probe(base + ("/models" if base.endswith("/v1") else "/v1/models"), headers)
    if wire == "openai":
        base = (api_base or OPENAI_BASE).rstrip("/")
        key = os.environ.get("OPENAI_API_KEY")
        return Probe(f"{base}/models", {"authorization": f"Bearer {key}"} if key else {})
    return None


def reach(model: str, api_base: str | None, timeout: float = REACH_TIMEOUT
          ) -> tuple[Verdict, str]:
    """Whether the provider answered, and one line saying how."""
    probe = probe_for(model, api_base)
    if probe is None:
        return "warn", "not contacted (a litellm provider: doctor knows no models list for it)"
    import httpx

    parts = urlsplit(probe.url)
    host = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)  # no userinfo
    try:
        response = httpx.get(probe.url, headers=probe.headers, timeout=timeout,
                             follow_redirects=False)
    except httpx.TimeoutException:
        return "fail", f"{host} did not answer within {timeout:g} s"
    except httpx.HTTPError as exc:
        from swebash_py.engine.secrets import redact_userinfo
        from swebash_py.provider.retry import connection_refused

        why = ("connection refused" if connection_refused(exc)
               else redact_userinfo(str(exc)) or type(exc).__name__)
        return "fail", f"cannot reach {host}: {why}"
    status = response.status_code
    if status == 200:
        return "ok", f"{host} answered (models list, no tokens spent)"
    if status in (401, 403):
        return "fail", f"{host} refused the key (HTTP {status})"
    if status >= 500:
        return "fail", f"{host} answered HTTP {status}"
    return "warn", f"{host} is up but answered HTTP {status} to a models list"
