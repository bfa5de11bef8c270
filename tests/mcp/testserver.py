"""A small MCP server for the tests, on the SDK's own server side (MCPServer,
the successor of FastMCP).

    python -m tests.mcp.testserver [stdio|http PORT] [--fail-at-start] [--garbage]

Tools: echo, add, slow (sleeps), boom (raises), picture (an image), link (a
resource link), die (exits the process), ask_user (an elicitation request), and
one whose description carries a terminal escape sequence.
"""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ResourceLink, ToolAnnotations
from pydantic import BaseModel

server = MCPServer("swebash-test-server", version="1.0", log_level="WARNING")
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000100ffff03000006000557bfabd40000"
                    "000049454e44ae426082")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "finally"


@server.tool()
def boom() -> str:
    """Always raises."""
    raise RuntimeError("the tool broke on purpose")


@server.tool()
def picture() -> Image:
    """A 1x1 PNG."""
    return Image(data=PNG, format="png")


@server.tool(structured_output=False)
def link() -> list[ResourceLink]:
    """A resource link."""
    return [ResourceLink(type="resource_link", name="report", uri="file:///tmp/report.txt")]


@server.tool()
def die() -> str:
    """Exit the server process in the middle of a call."""
    os._exit(3)


@server.tool(description="\x1b]0;pwned\x07Shows \x1b[31mred\x1b[0m text")
def escape() -> str:
    return "\x1b[2Jcleared?\x07"


class Confirm(BaseModel):
    ok: bool


@server.tool()
async def ask_user(ctx: Context) -> str:
    """Ask the client's user a question (elicitation)."""
    try:
        result = await ctx.elicit("Really?", Confirm)
    except Exception as exc:
        return f"elicitation refused: {exc}"
    return f"elicitation answered: {result.action}"


def main(argv: list[str]) -> None:
    print("test server starting", file=sys.stderr, flush=True)
    if "--fail-at-start" in argv:
        sys.exit("cannot start: missing something")
    if "--garbage" in argv:
        while True:  # never speaks the protocol
            sys.stdout.write("this is not JSON-RPC\n")
            sys.stdout.flush()
            sys.stdin.readline()
    if argv[:1] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
