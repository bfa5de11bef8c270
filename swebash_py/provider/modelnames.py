"""Model names for people: what Tab offers after ``/model``, and whether a name can work.

Both without importing litellm (3-4 s): the names come from the model table
(``modelinfo.model_map``, with each entry's provider); the providers litellm
knows from its ``LlmProviders`` enum, read as text from its packaged source,
plus the table's providers. ``model_problem`` refuses only what cannot work:
a ``PREFIX/name`` that would be routed to litellm with a prefix litellm does
not know (``nosuch/thing``). A name missing from the table is a warning (new
models, local servers behind ``--api-base``); when litellm's list cannot be read
an unknown prefix is a warning too (unsure: never refuse).
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path
from typing import Literal

from swebash_py.engine.modelinfo import model_entry, model_map

_CHAT_MODES = (None, "chat", "responses", "completion")
_ENUM = re.compile(r"^class LlmProviders\(.*?\):\n(.*?)^\S", re.MULTILINE | re.DOTALL)
_MEMBER = re.compile(r'^\s+[A-Z0-9_]+\s*=\s*"([^"]+)"', re.MULTILINE)
# prefixes litellm routes without a table entry (OpenAI-compatible servers and the like)
_ALSO = frozenset({"openai", "anthropic", "ollama", "ollama_chat", "hosted_vllm", "lm_studio",
                   "llamafile", "custom_openai", "openai_like", "litellm_proxy", "huggingface",
                   "openrouter", "text-completion-openai", "openai_compatible"})
Severity = Literal["refuse", "warn"]


@cache
def model_names() -> tuple[str, ...]:
    """Chat models of the table as litellm strings (``anthropic/claude-…``), sorted."""
    names = set()
    table = model_map()
    for name in table:
        entry = table.entry(name) or {}
        if entry.get("mode") not in _CHAT_MODES:
            continue
        provider = entry.get("litellm_provider")
        if "/" in name or not isinstance(provider, str) or not provider:
            names.add(name)
        else:
            names.add(f"{provider}/{name}")
    return tuple(sorted(names))


def complete(prefix: str, limit: int = 200) -> list[str]:
    """Table names starting with ``prefix`` (at most ``limit``)."""
    found = [name for name in model_names() if name.startswith(prefix)]
    return found[:limit]


@cache
def _litellm_providers() -> frozenset[str]:
    """The values of litellm's ``LlmProviders`` enum (empty when it cannot be read)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    for location in spec.submodule_search_locations:
        try:
            text = (Path(location) / "types" / "utils.py").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if found := _ENUM.search(text):
            return frozenset(_MEMBER.findall(found.group(1)))
    return frozenset()


@cache
def _table_providers() -> frozenset[str]:
    table = model_map()
    found = {e.get("litellm_provider") for n in table if (e := table.entry(n))}
    return frozenset(p for p in found if isinstance(p, str))


def known_providers() -> frozenset[str]:
    return _litellm_providers() | _ALSO | _table_providers()


def _known(prefix: str) -> bool:
    """Whether litellm knows ``prefix``: its own enum is the authority (what its
    ``get_llm_provider`` accepts); the table's providers only stand in for it when
    it cannot be read (then nothing is refused)."""
    return prefix in _ALSO or prefix in (_litellm_providers() or _table_providers())


def model_problem(model: str, api_base: str | None = None,
                  backend: str = "auto") -> tuple[Severity, str] | None:
    """Why ``model`` will not work (``refuse``) or may not (``warn``), or None."""
    from swebash_py.provider.routing import route

    model = model.strip()
    if not model:
        return "refuse", "the model name is empty"
    if model_entry(model) is not None:
        return None
    prefix, slash, _rest = model.partition("/")
    litellm = route(model, api_base, backend).backend == "litellm"
    if slash and litellm and not _known(prefix):
        sure = bool(_litellm_providers())
        return ("refuse" if sure else "warn",
                unknown_provider(model))
    return "warn", (f"{model} is not in the model table: its context window and price are "
                    "unknown (check the name if that is a surprise)")


def unknown_provider(model: str) -> str:
    """The one wording for a model whose provider prefix litellm does not know
    (said at once by ``-m``/``/model``, and by litellm's own error)."""
    prefix = model.split("/", 1)[0] if "/" in model else ""
    said = f"no provider is called '{prefix}'" if prefix else "the model names no provider"
    return (f"unknown model '{model}': {said}; write provider/model, e.g. "
            "openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, gemini/gemini-2.5-flash, "
            "ollama_chat/llama3.1; for an OpenAI-compatible server, openai/NAME with "
            "--api-base")
