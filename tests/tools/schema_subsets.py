"""The JSON Schema subsets our strictest consumers accept, written down.

- ``openai``: function ``parameters``. Root an object with
  ``additionalProperties: false`` (what strict function calling demands; strict
  itself also wants every property required, so it applies only to tools with no
  optional argument, and we do not send ``strict``); the keywords of OpenAI's
  structured-outputs list.
- ``gemini``: a function declaration's ``parameters`` is an OpenAPI 3.0 Schema
  object: a single string ``type``, string-only ``enum``, no ``anyOf`` with a null
  type (``nullable`` instead), no ``$ref``/``$defs``, no ``title`` we need.
  ``additionalProperties`` is not part of it: litellm's Gemini route filters each
  schema to the Schema fields (``filter_schema_fields``), so ``false`` there is
  accepted and removed; anything else would be a meaning lost.
- ``anthropic``: ``input_schema`` is JSON Schema with an object root.

Shared by all three: no generated ``title``, no ``anyOf [T, null]`` (an optional
argument is simply not ``required``), every required name is a property.
"""

from __future__ import annotations

from typing import Any

TYPES = {"string", "integer", "number", "boolean", "array", "object"}
_BASE = {"type", "description", "properties", "required", "items", "enum", "minimum",
         "maximum", "minLength", "maxLength", "default", "additionalProperties"}
KEYWORDS = {
    "openai": _BASE | {"exclusiveMinimum", "exclusiveMaximum", "pattern", "format",
                       "minItems", "maxItems", "const"},
    "gemini": _BASE | {"format", "nullable", "minItems", "maxItems", "pattern"},
    "anthropic": _BASE | {"exclusiveMinimum", "exclusiveMaximum", "pattern", "format",
                          "minItems", "maxItems", "const"},
}


def problems(schema: dict[str, Any], consumer: str) -> list[str]:
    """What ``consumer`` would refuse or misread in a tool's parameter schema."""
    found: list[str] = []
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        found.append("root: not an object with properties")
    if consumer == "openai" and schema.get("additionalProperties") is not False:
        found.append("root: additionalProperties is not false")
    _walk(schema, consumer, "root", found)
    return found


def _walk(node: dict[str, Any], consumer: str, where: str, found: list[str]) -> None:
    for key in node:
        if key not in KEYWORDS[consumer]:
            found.append(f"{where}: {key}")
    kind = node.get("type")
    if not (isinstance(kind, str) and kind in TYPES):
        found.append(f"{where}: type {kind!r}")
    if "additionalProperties" in node and node["additionalProperties"] is not False:
        found.append(f"{where}: additionalProperties other than false")
    if "enum" in node and consumer == "gemini" and not all(
            isinstance(v, str) for v in node["enum"]):
        found.append(f"{where}: enum of non-strings")
    properties = node.get("properties", {})
    for name in node.get("required", []):
        if name not in properties:
            found.append(f"{where}: required {name!r} is not a property")
    for name, sub in properties.items():
        _walk(sub, consumer, f"{where}.{name}", found)
    if isinstance(node.get("items"), dict):
        _walk(node["items"], consumer, f"{where}[]", found)
