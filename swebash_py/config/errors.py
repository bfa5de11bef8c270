"""The one line for settings that do not fit: ``config error: SOURCE: key 'a.b':
PROBLEM``, from msgspec's ``ValidationError`` (imported only when there is one).

msgspec names the place as ``$.a.b[0]`` and a dict's entry as ``[...]``; the
entry is found again here (the first that does not fit), so the key reads
``mcp_servers.docs.url``. Type and range problems say what the value got.
"""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

from swebash_py.config.table import FieldProblem, decode_path

_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+|\.\.\.)\]")
_UNKNOWN = re.compile(r"Object contains unknown field `(.*)`")
_TYPE = re.compile(r"Expected `([^`]*)`, got `[^`]*`")
_RANGE = re.compile(r"Expected `[^`]*` (>=|>|<=|<) (\S+)")
_WORDS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean",
          "array": "list", "object": "dictionary"}
_BOUNDS = {">=": "greater than or equal to", ">": "greater than",
           "<=": "less than or equal to", "<": "less than"}


def describe(exc: msgspec.ValidationError, data: dict[str, Any], root: type,
             source_of: Callable[[str], str]) -> str:
    """``config error: ...`` for ``exc``, raised checking ``data`` as ``root``;
    ``source_of(key)`` says where the value of a dotted key came from."""
    message, where = _split(exc)
    keys, value = _locate(where, data, root)
    cause = exc.__cause__
    got = True
    if isinstance(cause, FieldProblem):  # our own check of one field: its message
        keys.append(cause.field)
        problem, got = str(cause), False
    elif unknown := _UNKNOWN.fullmatch(message):
        keys.append(unknown.group(1))
        problem, got = "unknown key" + _did_you_mean(keys, root), False
    elif isinstance(cause, ValueError):  # a table's own check (an MCP server's transport)
        problem, got = str(cause), False
    elif isinstance(cause, TypeError):  # decode_path
        problem = str(cause)
    else:
        problem = _problem(message, _type_at(keys, root))
    key = ".".join(keys)
    if got and key != "store.url":  # the store's URL may hold a password: never echo it
        problem += f" (got {value!r})"
    return f"config error: {source_of(key)}: key '{key}': {problem}"


def _split(exc: msgspec.ValidationError) -> tuple[str, str]:
    """msgspec's ``MESSAGE - at `$.a.b``` as the message and ``.a.b`` ('': the root)."""
    text, cause = str(exc), str(exc.__cause__ or "")
    if cause and text.startswith(cause):  # our own message: it may hold anything
        return cause, text[len(cause):].removeprefix(" - at `$").removesuffix("`")
    message, at, where = text.rpartition(" - at `$")
    return (message, where.removesuffix("`")) if at else (text, "")


def _locate(where: str, data: Any, root: type) -> tuple[list[str], Any]:
    """The keys of msgspec's ``.a[...].b[0]`` in ``data``, and the value there."""
    keys: list[str] = []
    kind: Any = root
    for name, index in _STEP.findall(where):
        part = name or index
        if part == "..." and isinstance(data, dict):
            part = _first_misfit(data, _child(kind, part))
        keys.append(part)
        kind = _child(kind, part)
        data = _get(data, part)
    return keys, data


def _first_misfit(entries: dict[str, Any], kind: Any) -> str:
    """The first entry that does not fit ``kind`` (msgspec checks them in order)."""
    for name, entry in entries.items():
        try:
            msgspec.convert(entry, kind, strict=False, dec_hook=decode_path)
        except msgspec.ValidationError:
            return str(name)
    return "..."


def _get(data: Any, part: str) -> Any:
    if isinstance(data, dict):
        return data.get(part)
    if isinstance(data, list) and part.isdigit() and int(part) < len(data):
        return data[int(part)]
    return None


def unwrap(kind: Any) -> Any:
    """``X`` of ``Annotated[X, ...]`` and of ``X | None``."""
    while True:
        origin = get_origin(kind)
        if origin is Annotated:
            kind = get_args(kind)[0]
        elif origin in (Union, types.UnionType) and type(None) in get_args(kind):
            rest = [arg for arg in get_args(kind) if arg is not type(None)]
            if len(rest) != 1:
                return kind
            kind = rest[0]
        else:
            return kind


def _child(kind: Any, part: str) -> Any:
    """The type one key down from ``kind`` (a table's field, a dict's or list's item)."""
    kind = unwrap(kind)
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        fields = {field.name: field.type for field in msgspec.structs.fields(kind)}
        return fields.get(part)
    if get_origin(kind) is dict:
        return get_args(kind)[1]
    if get_origin(kind) is list:
        return get_args(kind)[0]
    return None


def _type_at(keys: list[str], root: type) -> Any:
    kind: Any = root
    for part in keys:
        kind = _child(kind, part)
    return unwrap(kind)


def _did_you_mean(keys: list[str], root: type) -> str:
    """`; did you mean 'model'?` for a misspelt key (``modle``), else ''."""
    table = _type_at(keys[:-1], root)
    if not (isinstance(table, type) and issubclass(table, msgspec.Struct)):
        return ""
    names = [field.name for field in msgspec.structs.fields(table)]
    close = difflib.get_close_matches(keys[-1], names, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _problem(message: str, kind: Any) -> str:
    """msgspec's message in words: what the value should be."""
    if get_origin(kind) is Literal:
        choices = [repr(choice) for choice in get_args(kind)]
        return "Input should be " + (" or ".join([", ".join(choices[:-1]), choices[-1]])
                                     if len(choices) > 1 else choices[0])
    if bound := _RANGE.match(message):
        number = float(bound.group(2))
        shown = int(number) if number.is_integer() else number
        return f"Input should be {_BOUNDS[bound.group(1)]} {shown}"
    if expected := _TYPE.match(message):
        names = [_WORDS.get(name, name) for name in expected.group(1).split(" | ")
                 if name != "null"]
        return "Input should be a valid " + " or ".join(names)
    return message

