"""Secret values never reach the model: literal values (8 characters or more)
of provider keys and secret-looking variables in our own environment are
replaced by ``[REDACTED]`` in every tool result."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from swebash_py.sandbox.env import is_secret_name

if TYPE_CHECKING:
    from swebash_py.tools.base import ToolResult  # a type only: the sandbox sits below tools

MIN_LEN = 8
REDACTED = "[REDACTED]"


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values to hide, longest first (so a value inside another goes second)."""
    env = environ if environ is not None else os.environ
    values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_LEN}
    return sorted(values, key=len, reverse=True)


def redact(text: str, values: list[str] | None = None) -> str:
    values = secret_values() if values is None else values
    if not values or not text:
        return text
    pattern = re.compile("|".join(re.escape(v) for v in values))
    return pattern.sub(REDACTED, text)


def redact_result(result: ToolResult) -> ToolResult:
    """A copy of a ``ToolResult`` with ``output`` and ``display`` redacted."""
    values = secret_values()
    if not values:
        return result
    display = result.display
    return dataclasses.replace(result, output=redact(result.output, values),
                               display=redact(display, values) if display else display)
