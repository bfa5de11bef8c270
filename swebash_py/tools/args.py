"""The base of every tool's arguments: a pydantic model that rejects unknown fields.

Kept apart from ``tools.base`` so that offering the tools (``tools.catalog``)
needs no pydantic: only a tool's own module, loaded for its first call, does.

The schema a model is offered is the pydantic one made plain (``offered``): no
generated ``title`` (noise the model pays for in tokens), and an optional
argument is simply not ``required`` instead of ``anyOf: [T, null]`` with
``default: null`` (small models then send the string "null"; Gemini's
function-declaration subset and some servers handle ``anyOf`` poorly).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def model_json_schema(cls, by_alias: bool | None = None,
                          ref_template: str = DEFAULT_REF_TEMPLATE,
                          schema_generator: type[GenerateJsonSchema] = GenerateJsonSchema,
                          mode: JsonSchemaMode = "validation",
                          **kwargs: Any) -> dict[str, Any]:
        """The schema as offered to the model (see ``offered``): every caller,
        the catalog generator and ``Tool.spec`` alike, gets the plain one."""
        schema = super().model_json_schema(by_alias, ref_template, schema_generator, mode,
                                           **kwargs)
        return offered(schema)


def offered(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without titles, nullable ``anyOf`` or ``default: null`` (a new dict)."""
    plain: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            plain[key] = {name: offered(sub) if isinstance(sub, dict) else sub
                          for name, sub in value.items()}
        elif isinstance(value, dict):
            plain[key] = offered(value)
        elif isinstance(value, list):
            plain[key] = [offered(item) if isinstance(item, dict) else item for item in value]
        else:
            plain[key] = value
    return _without_null(plain)


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [T, {"type": "null"}]`` becomes T itself; ``default: null`` goes:
    the argument is optional because it is not ``required``."""
    variants = schema.get("anyOf")
    if isinstance(variants, list):
        kept = [v for v in variants if v != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(variants):
            del schema["anyOf"]
            schema = {**kept[0], **schema}
    if "default" in schema and schema["default"] is None:
        del schema["default"]
    return schema
