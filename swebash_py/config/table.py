"""A table of the configuration: a msgspec ``Struct`` that rejects unknown keys.

Built from parsed TOML by ``Table.from_data`` (types and ranges from the
annotations, our own checks in ``__post_init__``, which raise ``FieldProblem``
naming the field); ``to_data`` is its plain form (what ``ai config show``
prints). Nothing checks a plain attribute assignment: code that changes a
loaded setting goes through ``Table.change``, checked like the file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any, Self

import msgspec


class FieldProblem(ValueError):
    """One of our own checks of ``field`` failed; the message says what is wrong.
    (msgspec turns it into a ``ValidationError`` whose ``__cause__`` it is.)"""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class Table(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A config table: every key known, every value of its declared type."""

    @classmethod
    def from_data(cls, data: Any) -> Self:
        """Checked from plain data (a ``msgspec.ValidationError`` if it does not fit).
        Lax like the TOML it comes from: ``3.0`` is an int, ``"2"`` a number."""
        from swebash_py.stopsignals import held

        with held():  # a stop signal raising inside msgspec's callbacks crashed it
            return msgspec.convert(data, cls, strict=False, dec_hook=decode_path)

    def to_data(self) -> dict[str, Any]:
        """The plain form: dicts, lists, strings and numbers (paths as strings)."""
        data: dict[str, Any] = msgspec.to_builtins(self, enc_hook=str)
        return data

    def change(self, **values: Any) -> None:
        """Set fields after loading, checked as when loaded (``ValidationError`` if not)."""
        checked = type(self).from_data({**self.to_data(), **values})
        for name in values:
            setattr(self, name, getattr(checked, name))


def decode_path(kind: type, value: Any) -> Any:
    """msgspec's hook for the one non-builtin type of the settings: ``Path``."""
    if kind is Path:
        if isinstance(value, str | PurePath):
            return Path(value)
        raise TypeError("Input is not a valid path")
    raise NotImplementedError(kind)


def check_field(field: str, check: Callable[[Any], object], value: Any) -> None:
    """Run one of our checks on a field's value; its ``ValueError`` becomes a
    ``FieldProblem`` naming the field."""
    try:
        check(value)
    except ValueError as exc:
        raise FieldProblem(field, str(exc)) from None
