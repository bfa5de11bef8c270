"""Tool names and input schemas that both wire formats accept.

OpenAI and Anthropic take a JSON Schema object for a tool's parameters, but
neither takes all of JSON Schema: both want an object at the top, OpenAI
rejects top-level combinators, ``$ref`` to ``$defs`` is a gamble, and
property names must be plain. A server's schema is rebuilt from a small
allow-list of keywords, references inlined (depth-bounded), the top forced
to ``{"type": "object", "properties": ...}``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_DEPTH = 8
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]")
_PROPERTY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
_SCALAR_KEYS = {"description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
                "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
                "multipleOf", "uniqueItems", "title"}
_COMBINATORS = ("anyOf", "oneOf", "allOf")


def tool_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL`` within 64 characters of ``[A-Za-z0-9_-]``."""
    name = f"mcp__{server}__{_NAME_BAD.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
    return name[: MAX_NAME - 9] + "_" + digest


def sanitize_schema(schema: Any) -> dict[str, Any]:
    """An object schema both formats accept, from whatever the server sent."""
    defs = {}
    if isinstance(schema, dict):
        for key in ("$defs", "definitions"):
            if isinstance(schema.get(key), dict):
                defs.update(schema[key])
    clean = _node(schema, defs, 0) if isinstance(schema, dict) else {}
    out: dict[str, Any] = {"type": "object", "properties": clean.get("properties", {})}
    if clean.get("required"):
        out["required"] = clean["required"]
    if "additionalProperties" in clean:
        out["additionalProperties"] = clean["additionalProperties"]
    return out


def _node(node: Any, defs: dict[str, Any], depth: int) -> dict[str, Any]:
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return {}
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/") else None
        merged = {**(target if isinstance(target, dict) else {}),
                  **{k: v for k, v in node.items() if k != "$ref"}}
        return _node(merged, defs, depth + 1) if target is not None else {}
    out: dict[str, Any] = {}
    kind = node.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        out["type"] = kind
    elif isinstance(kind, list):
        kinds = [k for k in kind if isinstance(k, str) and k in _TYPES]
        if kinds:
            out["type"] = kinds if len(kinds) > 1 else kinds[0]
    for key in _SCALAR_KEYS:
        value = node.get(key)
        if isinstance(value, (str, int, float, bool)) and not (key == "description"
                                                               and not isinstance(value, str)):
            out[key] = value[:MAX_DESCRIPTION] if isinstance(value, str) else value
    for key in ("enum",):
        if isinstance(node.get(key), list) and node[key]:
            out[key] = [v for v in node[key] if isinstance(v, (str, int, float, bool)) or v is None]
    if "const" in node and isinstance(node["const"], (str, int, float, bool)):
        out["const"] = node["const"]
    if "default" in node and isinstance(node["default"], (str, int, float, bool, list)):
        out["default"] = node["default"]
    _children(node, out, defs, depth)
    return out


def _children(node: dict[str, Any], out: dict[str, Any], defs: dict[str, Any],
              depth: int) -> None:
    props = node.get("properties")
    if isinstance(props, dict):
        out["properties"] = {name: _node(value, defs, depth + 1)
                             for name, value in props.items()
                             if isinstance(name, str) and _PROPERTY.match(name)}
        required = node.get("required")
        if isinstance(required, list):
            kept = [r for r in required if isinstance(r, str) and r in out["properties"]]
            if kept:
                out["required"] = kept
        out.setdefault("type", "object")
    extra = node.get("additionalProperties")
    if isinstance(extra, bool):
        out["additionalProperties"] = extra
    elif isinstance(extra, dict):
        out["additionalProperties"] = _node(extra, defs, depth + 1)
    items = node.get("items")
    if isinstance(items, dict):
        out["items"] = _node(items, defs, depth + 1)
    elif out.get("type") == "array":
        out["items"] = {}
    for key in _COMBINATORS:
        options = node.get(key)
        if isinstance(options, list) and options:
            out[key] = [_node(o, defs, depth + 1) for o in options if isinstance(o, dict)]
