"""The tools offered to the model, by name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from swebash_py.config.settings import Settings
from swebash_py.provider.base import ToolSpec
from swebash_py.tools.base import Tool, ToolTraits


class ToolRegistry:
    """An ordered set of tools, looked up by name."""

    def __init__(self, tools: list[Tool[Any]]) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"duplicate tool name: {tool.name}")
            self._tools[tool.name] = tool

    def add(self, tool: Tool[Any]) -> None:
        """Add a tool that became available later (an MCP server's)."""
        if tool.name in self._tools:
            raise ValueError(f"duplicate tool name: {tool.name}")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool[Any]]:
        return list(self._tools.values())

    def specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self._tools.values()]

    def closest(self, name: str) -> str | None:
        """The registered name most like ``name`` (for "did you mean"), if any is close."""
        import difflib  # here: only a misnamed tool call needs it

        lowered = {n.lower(): n for n in self._tools}
        matches = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        return lowered[matches[0]] if matches else None

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools


def builtin_tool_classes() -> list[type[Tool[Any]]]:
    """The built-in tools, in the order the model sees them: the one list to
    extend when adding a tool (each class describes itself)."""
    from swebash_py.tools.command import RunCommand
    from swebash_py.tools.edit import EditFile, WriteFile
    from swebash_py.tools.fetch import WebFetch
    from swebash_py.tools.files import ListDirectory, ReadFile, SearchFiles
    from swebash_py.tools.find import FindFiles
    from swebash_py.tools.jobs import CommandOutput, StopCommand
    from swebash_py.tools.web import WebSearch

    return [ReadFile, ListDirectory, SearchFiles, FindFiles, WriteFile, EditFile, RunCommand,
            CommandOutput, StopCommand, WebSearch, WebFetch]


def builtin_traits() -> dict[str, ToolTraits]:
    """The built-in tools' traits by name (rules are checked against these), from
    the generated catalog: no tool module is imported."""
    from swebash_py.tools.catalog import catalog_traits

    return catalog_traits()


def default_tools(settings: Settings) -> list[Tool[Any]]:
    """The built-in tools, configured from ``settings``; each tool's module is
    imported at the tool's first use (``tools.catalog``)."""
    from swebash_py.tools.catalog import lazy_tools

    return lazy_tools(settings)
