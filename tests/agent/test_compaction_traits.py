"""The compaction state's "Files changed" follows the tools' traits (kind ``edit``),
never their names (#28): the agent hands the engine ``fitting.edit_kind(registry)``.
A new edit tool with any name is listed; the twins: a read tool's paths are not,
and a built-in edit tool's name means nothing when no such tool is registered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar

from swebash_py.agent.fitting import ContextFitter, edit_kind
from swebash_py.engine.compaction_state import FILES, recorded
from swebash_py.engine.messages import Message, ToolResultBlock, ToolUseBlock
from swebash_py.events import ProviderEvent, TextDelta
from swebash_py.provider.base import ChatRequest
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Tool, ToolContext, ToolKind, ToolResult
from swebash_py.tools.registry import ToolRegistry


class PathArgs(ToolArgs):
    path: str


class _PathTool(Tool[PathArgs]):
    Args = PathArgs
    path_arg: ClassVar[str | None] = "path"

    async def run(self, args: PathArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(f"{self.name}: {args.path}")


class PatchIt(_PathTool):
    name: ClassVar[str] = "patch_it"
    description: ClassVar[str] = "Patch a file."
    kind: ClassVar[ToolKind] = "edit"


class LookAt(_PathTool):
    name: ClassVar[str] = "look_at"
    description: ClassVar[str] = "Read a file."
    kind: ClassVar[ToolKind] = "read"
    read_only: ClassVar[bool] = True


def _call(call_id: str, name: str, path: str) -> list[Message]:
    return [Message("assistant", [ToolUseBlock(call_id, name, f'{{"path": "{path}"}}')]),
            Message("user", [ToolResultBlock(call_id, name, "done", is_error=False)])]


def _history() -> list[Message]:
    return [Message.user("go"), *_call("c1", "patch_it", "src/new.c"),
            *_call("c2", "look_at", "src/seen.c"), *_call("c3", "edit_file", "src/named.c")]


REGISTRY = ToolRegistry([PatchIt(), LookAt()])


def test_an_edit_kind_tool_of_another_name_is_listed() -> None:
    parts = recorded(_history(), changes_files=edit_kind(REGISTRY))
    assert "src/new.c" in parts[FILES]


def test_twin_a_read_tool_or_a_mere_builtin_name_is_not_listed() -> None:
    """Only by trait: the read tool's path is not listed, nor is ``edit_file``'s when
    the registry holds no such tool (the old name list would have listed it)."""
    parts = recorded(_history(), changes_files=edit_kind(REGISTRY))
    assert parts[FILES] == ["src/new.c"]
    both = ToolRegistry([PatchIt(), LookAt(), _renamed_edit("edit_file")()])
    assert recorded(_history(), changes_files=edit_kind(both))[FILES] == [
        "src/new.c", "src/named.c"]  # registered with kind edit: listed


def _renamed_edit(name: str) -> type[_PathTool]:
    return type("Renamed", (PatchIt,), {"name": name})


async def test_the_fitter_passes_the_registry_traits_to_the_state() -> None:
    async def stream(request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        yield TextDelta("Goal: g.")

    fitter = ContextFitter(lambda: "openai/test-model", stream,
                           changes_files=edit_kind(REGISTRY))
    state = await fitter._summarize(_history())
    assert f"{FILES}\n- src/new.c\n" in state and "src/seen.c" not in state
    assert "src/named.c" not in state
