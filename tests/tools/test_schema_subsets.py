"""Every built-in tool's offered schema passes each consumer's written-down subset
(tests/tools/schema_subsets.py); the twin: msgspec's own schema would not."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import msgspec
import pytest
from msgspec import Meta

from swebash_py.config.settings import Settings
from swebash_py.tools import catalog
from swebash_py.tools.args import ToolArgs, offered
from swebash_py.tools.registry import default_tools
from tests.tools.schema_subsets import problems

CONSUMERS = ("openai", "gemini", "anthropic")


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_every_offered_schema_is_in_the_subset(consumer: str) -> None:
    for tool in default_tools(Settings()):
        spec = tool.spec()
        assert problems(spec.parameters, consumer) == [], (spec.name, consumer)


def test_the_catalog_has_no_title_ref_or_nullable_any_of() -> None:
    text = json.dumps([entry["parameters"] for entry in catalog.entries()])
    assert '"title"' not in text and "anyOf" not in text and '"default": null' not in text
    assert "$ref" not in text and "$defs" not in text


class _Ours(ToolArgs):
    """A docstring for developers: not offered."""

    name: Annotated[str, Meta(description="A name.")]
    count: Annotated[int, Meta(ge=1, description="How many.")] | None = None
    title: Annotated[str, Meta(description="An argument that is called title.")] | None = None
    order: Annotated[Literal["a", "b"], Meta(description="Which way.")] = "a"


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_twin_msgspecs_own_schema_fails_the_subset(consumer: str) -> None:
    """What msgspec says of the same Struct, untouched: a ``$ref`` root, titles, a
    nullable ``anyOf`` and an untyped enum."""
    raw = msgspec.json.schema(_Ours)
    assert problems(raw, consumer)  # the root is a $ref
    found = problems(raw["$defs"]["_Ours"], consumer)
    assert "root: title" in found and "root.count: anyOf" in found
    assert "root.order: type None" in found


def test_an_optional_argument_is_simply_not_required() -> None:
    schema = _Ours.json_schema()
    assert schema["required"] == ["name"]
    assert schema["properties"]["count"] == {"type": "integer", "minimum": 1,
                                             "description": "How many."}
    assert "title" in schema["properties"]  # an argument named title is kept
    assert schema["properties"]["title"] == {"type": "string",
                                             "description": "An argument that is called title."}
    assert schema["properties"]["order"] == {"type": "string", "enum": ["a", "b"],
                                             "default": "a", "description": "Which way."}
    assert "description" not in schema and "title" not in schema  # the docstring stays ours
    assert offered({"anyOf": [{"type": "string"}, {"type": "integer"}]}) == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]}  # a real union stays
