"""What may leave this machine: redaction before upload, output kept back.

On top of ``engine.secrets.redact`` (key patterns and assignments), the
literal values (8 characters or more) of provider keys and secret-looking
variables in ``ai``'s own environment are replaced, however they appear.
"""

from __future__ import annotations

import hashlib

from swebash_py.engine.secrets import REDACTED, redact
from swebash_py.process.values import secret_values

__all__ = ["NOT_UPLOADED", "digest", "scrub", "secret_values"]

NOT_UPLOADED = "[output not uploaded]"


def scrub(text: str | None, values: list[str]) -> str | None:
    """``text`` redacted for upload."""
    if not text:
        return text
    for value in values:
        text = text.replace(value, REDACTED)
    return redact(text)


def digest(text: str) -> tuple[str, int]:
    """(sha256 hex, length in characters) of ``text``."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), len(text)
