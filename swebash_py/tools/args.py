"""The base of every tool's arguments: a pydantic model that rejects unknown fields.

Kept apart from ``tools.base`` so that offering the tools (``tools.catalog``)
needs no pydantic: only a tool's own module, loaded for its first call, does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid")
