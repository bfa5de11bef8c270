"""Schemas and names a server sends, made acceptable to both wire formats."""

from __future__ import annotations

from swebash_py.mcpclient.schema import MAX_NAME, sanitize_schema, tool_name


def test_references_are_inlined_and_unknown_keywords_dropped() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "$defs": {"Unit": {"type": "string", "enum": ["c", "f"], "x-vendor": 1}},
              "properties": {"unit": {"$ref": "#/$defs/Unit"},
                             "when": {"type": "string", "format": "date-time"}},
              "required": ["unit", "ghost"]}
    clean = sanitize_schema(schema)
    assert clean == {"type": "object",
                     "properties": {"unit": {"type": "string", "enum": ["c", "f"]},
                                    "when": {"type": "string", "format": "date-time"}},
                     "required": ["unit"]}


def test_the_top_is_always_a_plain_object() -> None:
    assert sanitize_schema({"anyOf": [{"type": "string"}]}) == {"type": "object",
                                                                "properties": {}}
    assert sanitize_schema("garbage") == {"type": "object", "properties": {}}
    assert sanitize_schema(None) == {"type": "object", "properties": {}}


def test_bad_property_names_and_cycles_are_dropped() -> None:
    cyclic = {"type": "object", "$defs": {"N": {"type": "object",
                                                "properties": {"next": {"$ref": "#/$defs/N"}}}},
              "properties": {"ok": {"$ref": "#/$defs/N"}, "bad name!": {"type": "string"}}}
    clean = sanitize_schema(cyclic)
    assert list(clean["properties"]) == ["ok"]  # and it terminated


def test_arrays_get_items() -> None:
    clean = sanitize_schema({"type": "object", "properties": {"xs": {"type": "array"}}})
    assert clean["properties"]["xs"] == {"type": "array", "items": {}}


def test_tool_names_fit_both_formats() -> None:
    assert tool_name("time", "get_current_time") == "mcp__time__get_current_time"
    assert tool_name("t", "do.thing/now") == "mcp__t__do_thing_now"
    long = tool_name("server", "x" * 200)
    assert len(long) == MAX_NAME and long.startswith("mcp__server__")
    assert tool_name("server", "x" * 200) != tool_name("server", "x" * 199 + "y")
