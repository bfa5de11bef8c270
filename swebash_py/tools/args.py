"""The base of every tool's arguments: a msgspec Struct that rejects unknown fields.

msgspec is our one schema library (config, events and the store use it too):
it imports in ~20 ms and builds no models, where pydantic cost ~50 ms to import
plus its model building at a tool's first call.

A tool declares its arguments as fields; a description and the limits go in
``Annotated[T, msgspec.Meta(description=..., ge=..., min_length=...)]`` (the
one place a value is checked: msgspec checks them while converting, nothing
else validates). ``parse`` converts the model's JSON object leniently (``"5"``
for an integer, as small models send), and on a misfit names every argument
that does not fit, one ``name: problem`` each (``ArgsError``).

The schema a model is offered (``offered``) is msgspec's made plain: the root
``$ref``/``$defs`` inlined, no ``title`` (noise the model pays for in tokens),
and an optional argument simply not ``required`` instead of ``anyOf: [T,
null]`` with ``default: null`` (small models then send the string "null";
Gemini's function-declaration subset and some servers handle ``anyOf``
poorly); an enum says its ``type``.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar, get_args, get_origin

import msgspec

from swebash_py.config.errors import unwrap

T = TypeVar("T", bound="ToolArgs")

_WHERE = re.compile(r" - at `\$[^`]*`$")
_JSON_WORDS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean",
               "array": "array", "object": "object"}
_TICKED = re.compile(r"`([^`]*)`")


class ArgsError(ValueError):
    """Arguments that do not fit their tool: one ``name: problem`` per argument."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class ToolArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of every tool's arguments: unknown fields are rejected."""

    @classmethod
    def parse(cls: type[T], raw: dict[str, Any]) -> T:
        """The arguments a model sent, checked (``ArgsError`` naming each misfit)."""
        try:
            return msgspec.convert(raw, cls, strict=False)
        except msgspec.ValidationError as exc:
            raise ArgsError(misfits(cls, raw) or [_reworded(str(exc), None)]) from None

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The schema as offered to the model (see ``offered``)."""
        return offered(msgspec.json.schema(cls))

    def to_dict(self) -> dict[str, Any]:
        """The arguments as plain data, unset optional ones (None) left out."""
        return {name: value for name in self.__struct_fields__
                if (value := getattr(self, name)) is not None}


def misfits(cls: type[msgspec.Struct], raw: dict[str, Any]) -> list[str]:
    """``name: problem`` for each argument in ``raw`` that ``cls`` would not take,
    then each required one missing (msgspec itself stops at the first)."""
    fields = {field.encode_name: field for field in msgspec.structs.fields(cls)}
    found: list[str] = []
    for name, value in raw.items():
        field = fields.get(name)
        if field is None:
            found.append(f"{name}: unknown argument")
            continue
        try:
            msgspec.convert(value, field.type, strict=False)
        except msgspec.ValidationError as exc:
            found.append(f"{name}: {_reworded(str(exc), field.type)}")
    found += [f"{name}: missing (required)" for name, field in fields.items()
              if field.required and name not in raw]
    return found


def _reworded(message: str, kind: Any) -> str:
    """msgspec's ``Expected `int | null`, got `str` - at `$```, as the model reads
    its schema: ``expected integer, got string`` (null is never offered)."""
    message = _WHERE.sub("", message)
    choices = unwrap(kind)
    if get_origin(choices) is Literal:
        return "expected one of " + ", ".join(repr(c) for c in get_args(choices))
    message = _TICKED.sub(_words, message, count=1)  # what was expected: null never is
    message = _TICKED.sub(lambda m: _JSON_WORDS.get(m.group(1), m.group(1)), message)
    return message[:1].lower() + message[1:]


def _words(expected: re.Match[str]) -> str:
    return " or ".join(_JSON_WORDS.get(word, word) for word in expected.group(1).split(" | ")
                       if word != "null")


def offered(schema: dict[str, Any]) -> dict[str, Any]:
    """msgspec's ``schema`` of an arguments Struct as offered (a new dict): the
    root inlined, without titles, the class docstring, nullable ``anyOf`` or
    ``default: null``."""
    definitions = schema.get("$defs", {})
    root = _inlined(schema, definitions)
    root.pop("description", None)  # the class docstring: the tool's description says it
    return root


def _inlined(node: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        node = {**definitions[ref.removeprefix("#/$defs/")],
                **{k: v for k, v in node.items() if k != "$ref"}}
    plain: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs" or (key == "title" and isinstance(value, str)) or (
                key == "required" and value == []):  # nothing required: said by omission
            continue
        if key == "properties" and isinstance(value, dict):
            plain[key] = {name: _inlined(sub, definitions) if isinstance(sub, dict) else sub
                          for name, sub in value.items()}
        elif isinstance(value, dict):
            plain[key] = _inlined(value, definitions)
        elif isinstance(value, list):
            plain[key] = [_inlined(item, definitions) if isinstance(item, dict) else item
                          for item in value]
        else:
            plain[key] = value
    return _typed_enum(_without_null(plain))


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


def _typed_enum(schema: dict[str, Any]) -> dict[str, Any]:
    """An enum of strings says ``type: string`` (Gemini's Schema wants a type)."""
    values = schema.get("enum")
    if "type" not in schema and isinstance(values, list) and values and all(
            isinstance(v, str) for v in values):
        schema["type"] = "string"
    return schema
