"""Secret values never reach the model: literal values (8 characters or more)
of provider keys and secret-looking variables in our own environment are
replaced by ``[REDACTED]`` in every tool result.

Redaction needs the whole value, so output must never be cut inside one:
where output is cut (``clip_at_cut``: the middle a command's capture drops;
``partial_tail``: what a background command printed so far) the bytes that
could be part of a value are dropped or held back first."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

MIN_LEN = 8
REDACTED = "[REDACTED]"
# names that look like they hold a secret (used for the env and for value redaction)
SECRET_NAME = re.compile(r"(_KEY|_TOKEN|_SECRET|_PASSWORD|_APIKEY)$|API_KEY|PASSWORD|SECRET|"
                         r"_TOKEN|CREDENTIAL", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values to hide, longest first (so a value inside another goes second)."""
    env = environ if environ is not None else os.environ
    values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_LEN}
    return sorted(values, key=len, reverse=True)


def secret_bytes(environ: Mapping[str, str] | None = None) -> list[bytes]:
    """The values as UTF-8, as a process prints them."""
    return [v.encode("utf-8", "surrogateescape") for v in secret_values(environ)]


def partial_prefix(data: bytes | bytearray, values: list[bytes]) -> int:
    """How many final bytes of ``data`` are the start (not all) of some value."""
    best = 0
    for value in values:
        for k in range(min(len(value) - 1, len(data)), best, -1):
            if data.endswith(value[:k]):
                best = k
                break
    return best


def partial_suffix(data: bytes | bytearray, values: list[bytes]) -> int:
    """How many first bytes of ``data`` are the end (not all) of some value."""
    best = 0
    for value in values:
        for k in range(min(len(value) - 1, len(data)), best, -1):
            if data.startswith(value[-k:]):
                best = k
                break
    return best


def clip_at_cut(head: bytes, tail: bytes,
                values: list[bytes] | None = None) -> tuple[bytes, bytes]:
    """``head`` and ``tail`` of an output whose middle was dropped, without the
    bytes on either side of the cut that could be part of a secret value (its
    other part is gone with the middle, so redaction could not find it)."""
    values = secret_bytes() if values is None else values
    if not values:
        return head, tail
    return head[:len(head) - partial_prefix(head, values)], tail[partial_suffix(tail, values):]


def redact(text: str, values: list[str] | None = None) -> str:
    values = secret_values() if values is None else values
    if not values or not text:
        return text
    pattern = re.compile("|".join(re.escape(v) for v in values))
    return pattern.sub(REDACTED, text)
