"""Mapping a server's CallToolResult to our ToolResult (real SDK types)."""

from __future__ import annotations

import base64

from mcp.types import CallToolResult, ImageContent, TextContent

from swebash_py.mcpclient.results import map_result


def test_long_text_is_bounded_like_a_command() -> None:
    result = map_result(CallToolResult(content=[TextContent(type="text", text="x" * 50_000)]),
                        limit=1_000)
    assert len(result.output) <= 1_000 and "cut from the middle" in result.output


def test_is_error_and_escapes() -> None:
    result = map_result(CallToolResult(content=[TextContent(type="text", text="\x1b]0;t\x07no")],
                                       is_error=True), limit=1_000)
    assert (result.output, result.is_error) == ("no", True)


def test_structured_content_when_there_is_no_other() -> None:
    result = map_result(CallToolResult(content=[], structured_content={"a": 1}), limit=1_000)
    assert result.output == '{"a": 1}'


def test_an_image_is_handed_on_and_garbage_an_error() -> None:
    from tests.mcp.testserver import PNG

    image = ImageContent(type="image", data=base64.b64encode(PNG).decode(),
                         mime_type="image/png")
    result = map_result(CallToolResult(content=[image]), limit=1_000)
    assert result.output == f"[image returned by the tool: image/png, about {len(PNG)} bytes]"
    (block,) = result.metadata["images"]
    assert (block.media_type, base64.b64decode(block.data)) == ("image/png", PNG)
    # the twin: bytes that are no image stay a note, with why, and nothing is handed on
    fake = ImageContent(type="image", data="aGVsbG8=", mime_type="image/png")
    result = map_result(CallToolResult(content=[fake]), limit=1_000)
    assert result.output.startswith("[image returned by the tool: image/png")
    assert "not a png, jpeg, gif or webp image" in result.output
    assert "images" not in result.metadata
    assert map_result("not a result", limit=1_000).is_error
