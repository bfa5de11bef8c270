"""Every built-in tool's offered schema passes each consumer's written-down subset
(tests/tools/schema_subsets.py); the twin: pydantic's own schema would not."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

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


def test_the_catalog_has_no_title_or_nullable_any_of() -> None:
    text = json.dumps([entry["parameters"] for entry in catalog.entries()])
    assert '"title"' not in text and "anyOf" not in text and '"default": null' not in text


class _Plain(BaseModel):  # what pydantic says of an optional argument, untouched
    name: str = Field(description="A name.")
    count: int | None = Field(None, ge=1, description="How many.")


class _Ours(ToolArgs):
    name: str = Field(description="A name.")
    count: int | None = Field(None, ge=1, description="How many.")
    title: str | None = Field(None, description="An argument that is called title.")


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_twin_pydantics_own_schema_fails_the_subset(consumer: str) -> None:
    found = problems(_Plain.model_json_schema(), consumer)
    assert "root.name: title" in found and "root.count: anyOf" in found


def test_an_optional_argument_is_simply_not_required() -> None:
    schema = _Ours.model_json_schema()
    assert schema["required"] == ["name"]
    assert schema["properties"]["count"] == {"type": "integer", "minimum": 1,
                                             "description": "How many."}
    assert "title" in schema["properties"]  # an argument named title is kept
    assert schema["properties"]["title"] == {"type": "string",
                                             "description": "An argument that is called title."}
    assert offered({"anyOf": [{"type": "string"}, {"type": "integer"}]}) == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]}  # a real union stays
