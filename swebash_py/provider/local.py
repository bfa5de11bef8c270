"""What local model servers need told that hosted APIs do not.

Ollama loads a model with a small context window (2-4k tokens) unless the
request says otherwise, and then silently drops the start of the prompt: our
system prompt and tool schemas alone are ~3k tokens. So a request to Ollama
carries ``num_ctx`` = the context window we fit the conversation to
(``ContextFitter.window``: the config's ``context_window``, else the model
table, else 32k). On the litellm route (``ollama/…``, ``ollama_chat/…``) it is
the ``num_ctx`` parameter litellm puts in the native API's ``options``; on the
direct route (an OpenAI-compatible ``api_base``, Ollama's ``/v1``) it is
``options.num_ctx`` in the body (what Ollama's native endpoint reads; its
``/v1`` endpoint documents no per-request context size yet, so there set
``OLLAMA_CONTEXT_LENGTH`` on the server too).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from swebash_py.provider.base import ChatRequest

OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")
OLLAMA_PORT = 11434


def is_ollama(model: str, api_base: str | None) -> bool:
    """An Ollama model by its provider prefix, or a server on Ollama's port."""
    if model.startswith(OLLAMA_PREFIXES):
        return True
    if not api_base:
        return False
    try:
        return urlsplit(api_base).port == OLLAMA_PORT
    except ValueError:
        return False


def num_ctx(request: ChatRequest) -> int | None:
    """The context size to ask an Ollama server for, or None (not Ollama, or unknown)."""
    if request.context_window and is_ollama(request.model, request.api_base):
        return int(request.context_window)
    return None
