"""Tools describe themselves: rules, the policy and `ai tools` read the traits,
so a new tool (or an MCP tool) is handled from its own description alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from swebash_py.approvals.policy import decide, suggest_rule
from swebash_py.approvals.rules import RuleSet, parse_rule
from swebash_py.front.words import confirmation
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult, ToolTraits
from swebash_py.tools.registry import builtin_traits


def test_builtin_traits_follow_the_contract() -> None:
    traits = builtin_traits()
    read_only = {name for name, t in traits.items() if t.read_only}
    assert read_only == {"read_file", "list_directory", "search_files", "find_files",
                         "web_search", "web_fetch", "command_output"}
    assert {n for n, t in traits.items() if t.path_arg == "path"} == {
        "read_file", "list_directory", "search_files", "find_files", "write_file", "edit_file"}
    assert {n: t.default_approval for n, t in traits.items()} == {
        "read_file": "inside-workspace", "list_directory": "inside-workspace",
        "search_files": "inside-workspace", "find_files": "inside-workspace",
        "write_file": "auto-edit", "edit_file": "auto-edit", "run_command": "command",
        "command_output": "allow", "stop_command": "allow", "web_search": "ask",
        "web_fetch": "ask"}


# What `ai tools` said when the answers were a table of names (kept word for word).
ASKS_UNDER_ASK = {
    "read_file": "no, inside the workspace; yes outside",
    "list_directory": "no, inside the workspace; yes outside",
    "search_files": "no, inside the workspace; yes outside",
    "write_file": "yes, with the new file shown",
    "edit_file": "yes, with a diff shown",
    "run_command": ("yes, unless an allow rule (or, inside the sandbox, the read-only list) "
                    "covers every part; escalate: true always asks"),
    "web_search": "yes",
    "find_files": "no, inside the workspace; yes outside",
    "web_fetch": "yes",
    "command_output": "no",
    "stop_command": "no",
}


def test_ai_tools_words_are_derived_from_the_traits() -> None:
    traits = builtin_traits()
    assert {name: confirmation(t, "ask") for name, t in traits.items()} == ASKS_UNDER_ASK
    assert confirmation(traits["edit_file"], "auto-edit") == ASKS_UNDER_ASK["read_file"]
    assert confirmation(traits["read_file"], "strict") == "yes, always (strict)"


class _LogArgs(ToolArgs):
    file: str


class GrepLogs(Tool[_LogArgs]):
    """A tool added in one place: its class."""

    name: ClassVar[str] = "grep_logs"
    description: ClassVar[str] = "grep a log file"
    Args: ClassVar[type[ToolArgs]] = _LogArgs
    kind = "read"
    path_arg = "file"
    read_only = True

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")


MCP_NOW = ToolTraits("mcp__time__now")  # an MCP tool: kind "other", asks by default


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path.resolve()


def test_a_new_read_tool_runs_inside_the_workspace_and_asks_outside(ws: Path) -> None:
    traits = GrepLogs.traits()
    inside = decide(traits, {"file": "app.log"}, Preview("x"), "ask", RuleSet(), ws)
    outside = decide(traits, {"file": "/var/log/syslog"}, Preview("x"), "ask", RuleSet(), ws)
    assert (inside.action, outside.action) == ("allow", "ask")
    assert suggest_rule(traits, {"file": "/var/log/syslog"}, Preview("x"), ws) == [
        "grep_logs(/var/log/syslog)"]


def test_a_new_tool_takes_path_rules_once_it_is_known() -> None:
    tools = {**builtin_traits(), "grep_logs": GrepLogs.traits()}
    assert parse_rule("grep_logs(logs/**)", tools).glob == "logs/**"
    with pytest.raises(ValueError, match="unknown tool 'grep_logs'"):
        parse_rule("grep_logs(logs/**)")  # the twin: unknown to the built-in list


def test_an_mcp_tool_asks_by_default_and_a_rule_admits_it(ws: Path) -> None:
    tools = {MCP_NOW.name: MCP_NOW}
    assert decide(MCP_NOW, {}, Preview("x"), "ask", RuleSet(), ws).action == "ask"
    allowed = RuleSet([parse_rule("mcp__time__now", tools)])
    assert decide(MCP_NOW, {}, Preview("x"), "ask", allowed, ws).action == "allow"
    with pytest.raises(ValueError, match="takes no pattern"):
        parse_rule("mcp__time__now(x)", tools)
    assert confirmation(MCP_NOW, "ask") == "yes"
