"""litellm's exceptions as our errors, in our words.

litellm's messages wrap the provider's own words in layers of its own: class
names (``litellm.BadRequestError: AnthropicException - ``), the raw body as a
bytes literal (``b'{"type": "error", ...}'``), the aiohttp SSL context
(``ssl:<ssl.SSLContext object at 0x...>``), a repeat after ``Original
exception:``. ``provider_words`` digs the provider's message out; the
exception chain keeps the rest for ``--debug``.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any
from urllib.parse import urlsplit

from swebash_py.errors import (
    ContextTooLong,
    MissingApiKey,
    ModelNotFound,
    ProviderError,
    ProviderUnavailable,
    StreamCut,
)
from swebash_py.provider.errormap import error_for_status, is_context_message, retry_after_seconds
from swebash_py.provider.modelnames import unknown_provider

_BODY = re.compile(r"""b?(['"])(\{.*\})\1|(\{.*\})""", re.DOTALL)
_PREFIX = re.compile(r"^(?:litellm\.)?\w*(?:Error|Exception)(?: - |: )")
_SSL = re.compile(r"\s*ssl:<[^>]*>")
_CONNECT_FAILED = re.compile(r"\[Connect call failed[^\]]*\]|\[Errno 111\][^\]]*")
_MISSING_KEY = re.compile(r"missing \w+ api key|api[_ ]key (?:is )?(?:missing|not set|required)"
                          r"|set the \w+_API_KEY", re.IGNORECASE)
_CONNECTION = ("APIConnectionError", "Timeout", "APITimeoutError", "ClientConnectorError",
               "ConnectError", "ConnectTimeout")


def provider_words(text: str) -> str:
    """The provider's own message from a litellm message, on one line."""
    text = text.split("Original exception:", 1)[0].strip()
    body = _json_body(text)
    if body:
        return body
    first = text.splitlines()[0] if text else ""
    while (m := _PREFIX.match(first)) is not None:
        first = first[m.end():]
    first = _SSL.sub("", first)
    first = _CONNECT_FAILED.sub("(connection refused)", first)
    return " ".join(first.split())[:500]


def _json_body(text: str) -> str:
    """``error.message`` of a JSON error body quoted inside ``text``, if any."""
    m = _BODY.search(text)
    if m is None:
        return ""
    raw = m.group(2) or m.group(3)
    try:
        body = json.loads(raw)
    except ValueError:
        try:
            body = json.loads(ast.literal_eval("b'" + raw + "'").decode())
        except (ValueError, SyntaxError, UnicodeDecodeError):
            return ""
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("type")
        words = " ".join(error["message"].split())[:500]
        return f"{words} ({kind})" if isinstance(kind, str) and kind not in words else words
    return ""


def map_exception(exc: Exception, model: str, api_base: str | None = None, *,
                  midstream: bool = False) -> ProviderError:
    """A litellm (or transport) exception as one of our errors (``midstream``:
    raised while reading the stream, after it had started)."""
    name = type(exc).__name__
    raw = str(exc)
    message = provider_words(raw)
    status = getattr(exc, "status_code", None)
    headers = getattr(exc, "litellm_response_headers", None)
    retry_after = retry_after_seconds(dict(headers) if headers else None)
    if _MISSING_KEY.search(raw):
        return MissingApiKey(f"no API key for {model}: {message}")
    if name == "ContextWindowExceededError" or is_context_message(message):
        return ContextTooLong(f"context too long for {model}: {message}", status=400)
    if "LLM Provider NOT provided" in raw:
        return ModelNotFound(unknown_provider(model))
    if name == "MidStreamFallbackError" or (midstream and not _is_litellm(exc)):
        inner = exc if _is_litellm(exc) else _litellm_context(exc)
        detail = (provider_words(str(inner)) if inner is not None else "") or \
            "the provider sent something we could not read"
        return StreamCut(f"the stream from {model} broke midway: {detail}")
    if name == "NotFoundError":
        return ModelNotFound(f"model not found: {model}: {message}", status=status)
    if name in _CONNECTION and status in (None, 500):
        return ProviderUnavailable(f"cannot reach {_where(model, api_base)}: {message}")
    if isinstance(status, int):
        return error_for_status(status, message, retry_after, provider=model)
    return ProviderUnavailable(f"{model}: {message or name}")


def _litellm_context(exc: BaseException) -> BaseException | None:
    """The litellm exception ``exc`` was raised while handling, if any: litellm
    1.106.2 raises ``ValueError`` building its mid-stream error when a provider's
    error ``code`` is a word (Groq's ``event: error``), and the provider's
    message is on the exception it was handling."""
    seen: set[int] = set()
    inner = exc.__cause__ or exc.__context__
    while inner is not None and id(inner) not in seen:
        seen.add(id(inner))
        if isinstance(inner, Exception) and _is_litellm(inner):
            return inner
        inner = inner.__cause__ or inner.__context__
    return None


def _is_litellm(exc: Exception) -> bool:
    return type(exc).__module__.startswith(("litellm", "openai", "httpx", "aiohttp"))


def _where(model: str, api_base: str | None) -> str:
    host = urlsplit(api_base).netloc if api_base else ""
    return host or f"the provider for {model}"


def describe(exc: Any) -> str:
    """``Class: message`` for ``--debug`` notes."""
    return f"{type(exc).__name__}: {exc}"
