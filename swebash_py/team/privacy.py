"""What may leave this machine: redaction before upload, output kept back.

On top of ``engine.secrets.redact`` (key patterns and assignments), the
literal values (8 characters or more) of provider keys and secret-looking
variables in ``ai``'s own environment are replaced, however they appear.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping

from swebash_py.engine.secrets import REDACTED, redact

NOT_UPLOADED = "[output not uploaded]"
_SECRET_NAME = re.compile(r"(_KEY|_TOKEN|_SECRET|_PASSWORD)$|API_KEY")
_MIN_SECRET = 8


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values to scrub, longest first (so a longer one is not cut by a part)."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if _SECRET_NAME.search(k.upper()) and
              len(v) >= _MIN_SECRET}
    return sorted(values, key=len, reverse=True)


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
