"""An MCP server's tool as one of ours: ``mcp__SERVER__TOOL``.

Its arguments pass through as the model sent them (the server validates
them against its own schema); the schema the model sees is the sanitised
one. It is never ``read_only``: a server's ``readOnlyHint`` is its own claim,
so under ``ask`` every call asks unless an allow rule (``mcp__time__*``)
matches.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from swebash_py.mcpclient.schema import sanitize_schema, tool_name
from swebash_py.process.values import redact, secret_values
from swebash_py.provider.base import ToolSpec
from swebash_py.text.sanitize import one_line
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import (
    DefaultApproval,
    Preview,
    Tool,
    ToolContext,
    ToolKind,
    ToolResult,
)

if TYPE_CHECKING:
    from swebash_py.mcpclient.connection import ServerConnection, ServerTool


class McpArgs(ToolArgs):
    """Whatever the model sent, as it sent it: the server checks it against its own
    schema (which only it knows whole), so nothing is dropped or refused here."""

    arguments: dict[str, Any] = msgspec.field(default_factory=dict)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> McpArgs:
        return cls(arguments=dict(raw))

    def to_dict(self) -> dict[str, Any]:
        return dict(self.arguments)


class McpTool(Tool[McpArgs]):
    Args: ClassVar[type[ToolArgs]] = McpArgs
    kind: ClassVar[ToolKind] = "other"
    approval: ClassVar[DefaultApproval | None] = "ask"  # whatever its readOnlyHint says
    read_only: ClassVar[bool] = False
    server: ClassVar[str]
    remote_name: ClassVar[str]
    schema: ClassVar[dict[str, Any]]
    connection: ClassVar[ServerConnection]

    async def run(self, args: McpArgs, ctx: ToolContext) -> ToolResult:
        arguments = args.to_dict()
        return await self.connection.call(self.remote_name, arguments, ctx.max_output_chars)

    def preview(self, args: McpArgs, ctx: ToolContext) -> Preview:
        shown = json.dumps(args.to_dict(), ensure_ascii=False, indent=1)
        return Preview(summary=f"{self.name} (MCP server '{self.server}')",
                       detail=shown, detail_kind="text")

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.schema)


def make_tool(connection: ServerConnection, remote: ServerTool) -> McpTool:
    """A tool class (names are class attributes) for one remote tool, instantiated."""
    name = tool_name(connection.name, remote.name)
    # a server handed a secret could name it anywhere the model reads: redacted
    # like a tool result (contract: "Secret values never reach the model")
    description = one_line(redact(remote.description or ""), 1024) or f"{remote.name} (MCP)"
    schema = _redacted(sanitize_schema(remote.input_schema), secret_values())
    attributes = {"name": name, "description": f"[MCP server {connection.name}] {description}",
                  "server": connection.name, "remote_name": remote.name,
                  "schema": schema, "connection": connection}
    cls: type[McpTool] = type(f"McpTool_{name}", (McpTool,), attributes)
    return cls()


def _redacted(value: Any, secrets: list[str]) -> Any:
    """Every string in a JSON value, keys included, with secret values redacted."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {_redacted(k, secrets): _redacted(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, secrets) for v in value]
    return value
