"""Which backend serves a model.

``auto``: the direct client for the OpenAI and Anthropic wire formats
(``openai/…``, ``anthropic/…``, bare ``gpt-…``/``claude-…`` names, and any
model without a provider prefix that has an ``api_base``, taken as an
OpenAI-compatible server); litellm for every other provider. ``direct`` and
``litellm`` force one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Wire = Literal["openai", "anthropic"]

# Providers whose wire format is OpenAI Chat Completions at a known base URL.
_OPENAI_PREFIXES = ("openai/", "openai_compatible/", "text-completion-openai/")
_ANTHROPIC_PREFIXES = ("anthropic/",)
_BARE_OPENAI = ("gpt-", "o1", "o3", "o4", "chatgpt-")
_BARE_ANTHROPIC = ("claude-",)


@dataclass(frozen=True)
class Route:
    backend: Literal["direct", "litellm"]
    wire: Wire | None = None

    def describe(self) -> str:
        return f"direct ({self.wire} wire format)" if self.wire else "litellm"


def wire_of(model: str, api_base: str | None) -> Wire | None:
    """The wire format we can speak directly for ``model``, if any."""
    if model.startswith(_ANTHROPIC_PREFIXES) or model.startswith(_BARE_ANTHROPIC):
        return "anthropic"
    if model.startswith(_OPENAI_PREFIXES) or model.startswith(_BARE_OPENAI):
        return "openai"
    if "/" not in model and api_base:
        return "openai"
    return None


def route(model: str, api_base: str | None, setting: str = "auto") -> Route:
    """Pick the backend for ``model`` under the ``backend`` setting."""
    if setting == "litellm":
        return Route("litellm")
    wire = wire_of(model, api_base)
    if setting == "direct":
        return Route("direct", wire or "openai")
    return Route("direct", wire) if wire else Route("litellm")
