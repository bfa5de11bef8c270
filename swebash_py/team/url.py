"""The store URL: where it comes from, and how it is shown (never its password)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings

ENV = "SWEBASH_STORE_URL"


def store_url(settings: Settings) -> str | None:
    """``[store] url`` after the environment (``SWEBASH_STORE_URL``) was merged."""
    return settings.store.url or None


def mask(url: str) -> str:
    """``url`` with its password replaced by ``***`` (also a ``password=`` query)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid store url>"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user, sep, _password = userinfo.partition(":")
        netloc = f"{user}{':***' if sep else ''}@{hostport}"
    query = "&".join(
        "password=***" if q.split("=", 1)[0].lower() == "password" else q
        for q in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrub(message: str, url: str) -> str:
    """An error message with the URL's password (if any) taken out."""
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        message = message.replace(password, "***")
    return message.replace(url, mask(url))


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def from_env() -> str | None:
    return os.environ.get(ENV) or None
