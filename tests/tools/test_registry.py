"""The registry: the built-in tools, their schemas, and "did you mean"."""

from __future__ import annotations

import pytest

from swebash_py.config.settings import Settings
from swebash_py.tools.registry import ToolRegistry, default_tools

CONTRACT = {
    "read_file": ({"path"}, {"path", "offset", "limit"}, True),
    "list_directory": (set(), {"path"}, True),
    "search_files": ({"pattern"}, {"pattern", "path", "glob"}, True),
    "find_files": ({"pattern"}, {"pattern", "path", "sort", "limit"}, True),
    "write_file": ({"path", "content"}, {"path", "content"}, False),
    "edit_file": ({"path", "old_text", "new_text"},
                  {"path", "old_text", "new_text", "replace_all"}, False),
    "run_command": ({"command"}, {"command", "timeout", "background", "escalate", "workdir",
                                  "description"}, False),
    "command_output": ({"id"}, {"id", "wait"}, True),
    "stop_command": ({"id"}, {"id"}, False),
    "web_search": ({"query"}, {"query", "max_results"}, True),
    "web_fetch": ({"url"}, {"url", "offset"}, True),
}


def registry() -> ToolRegistry:
    return ToolRegistry(default_tools(Settings()))


def test_all_tools_match_the_contract() -> None:
    reg = registry()
    assert reg.names() == list(CONTRACT)
    for spec in reg.specs():
        required, properties, read_only = CONTRACT[spec.name]
        assert set(spec.parameters.get("required", [])) == required
        assert set(spec.parameters["properties"]) == properties
        assert spec.parameters["additionalProperties"] is False
        assert all(p.get("description") for p in spec.parameters["properties"].values())
        assert len(spec.description) > 40
        tool = reg.get(spec.name)
        assert tool is not None and tool.read_only is read_only


@pytest.mark.parametrize(("asked", "expected"), [
    ("read_files", "read_file"), ("Read_File", "read_file"), ("run_cmd", "run_command"),
    ("websearch", "web_search"), ("edit", "edit_file"), ("ls", None), ("launch_rockets", None)])
def test_closest_name(asked: str, expected: str | None) -> None:
    assert registry().closest(asked) == expected


def test_lookup_and_duplicates() -> None:
    reg = registry()
    assert reg.get("nope") is None and "read_file" in reg and len(reg) == len(CONTRACT)
    tools = default_tools(Settings())
    with pytest.raises(ValueError, match="duplicate"):
        ToolRegistry([tools[0], tools[0]])
