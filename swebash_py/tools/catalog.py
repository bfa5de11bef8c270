"""The built-in tools as the model and the approvals see them, without importing them.

Importing the tool modules costs their argument Structs, httpx, pathspec
and the sandbox: a third of a one-shot answer's start-up. An answer that calls
no tool needs only each tool's name, description, JSON schema and traits. Those
are generated from the classes into ``data/builtin_tools.json``
(``python -m swebash_py.tools.catalog``); a test keeps the file equal to what
the classes say. A ``LazyTool`` stands for a built-in tool and imports its
class at its first real use (a call's arguments, preview or run).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from swebash_py.provider.base import ToolSpec
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult, ToolTraits

CATALOG = Path(__file__).resolve().parent.parent / "data" / "builtin_tools.json"


@cache
def entries() -> tuple[dict[str, Any], ...]:
    """The catalog's entries, in the order the model sees the tools."""
    return tuple(json.loads(CATALOG.read_text(encoding="utf-8")))


def catalog_traits() -> dict[str, ToolTraits]:
    """The built-in tools' traits by name."""
    return {entry["name"]: ToolTraits(entry["name"], **entry["traits"]) for entry in entries()}


def lazy_tools(settings: Any) -> list[Tool[Any]]:
    """The built-in tools, each loaded at its first use and configured from ``settings``."""
    return [_lazy_class(entry["name"])(settings) for entry in entries()]


class LazyTool(Tool[Any]):
    """A built-in tool known by its catalog entry until it is used: then its class
    is imported and configured, and everything else is asked of that instance."""

    module: ClassVar[str]
    class_name: ClassVar[str]
    parameters: ClassVar[dict[str, Any]]

    def __init__(self, settings: Any) -> None:
        self._settings = settings
        self._real: Tool[Any] | None = None

    def loaded(self) -> Tool[Any]:
        """The real tool (imported and configured on the first call)."""
        if self._real is None:
            cls = getattr(importlib.import_module(self.module), self.class_name)
            self._real = cls.configured(self._settings)
        return self._real

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, _copied(self.parameters))

    def preview(self, args: Any, ctx: ToolContext) -> Preview:
        return self.loaded().preview(args, ctx)

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        return await self.loaded().run(args, ctx)

    def __getattr__(self, name: str) -> Any:  # ``Args``, ``timeout``, ...
        if name.startswith("__") or name in ("_real", "_settings"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)


def _copied(value: Any) -> Any:
    """A JSON value copied through (each spec gets its own schema to change); what
    ``copy.deepcopy`` does for parsed JSON, at a fraction of its cost."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


@cache
def _lazy_class(name: str) -> type[LazyTool]:
    """A ``LazyTool`` subclass carrying the catalog entry ``name`` as class attributes
    (where ``Tool`` keeps them), so ``traits()`` and the rest read as for the real one."""
    entry = next(entry for entry in entries() if entry["name"] == name)
    attributes = {"name": name, "description": entry["description"],
                  "module": entry["module"], "class_name": entry["class"],
                  "parameters": entry["parameters"], **entry["traits"]}
    return type(f"Lazy_{name}", (LazyTool,), attributes)


def generate() -> list[dict[str, Any]]:
    """The catalog as the tool classes describe themselves (imports them all)."""
    from swebash_py.tools.registry import builtin_tool_classes

    generated = []
    for cls in builtin_tool_classes():
        traits = dataclasses.asdict(cls.traits())
        del traits["name"]  # the entry's own
        generated.append({
            "name": cls.name, "module": cls.__module__, "class": cls.__qualname__,
            "description": cls.description, "parameters": cls.Args.json_schema(),
            "traits": traits})
    return generated


def render(generated: list[dict[str, Any]]) -> str:
    """The catalog file's text."""
    return json.dumps(generated, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    CATALOG.write_text(render(generate()), encoding="utf-8")
    print(f"wrote {CATALOG}")
