"""Mapping a server's CallToolResult to our ToolResult (real SDK types)."""

from __future__ import annotations

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


def test_an_image_is_a_note_and_garbage_an_error() -> None:
    image = ImageContent(type="image", data="aGVsbG8=", mime_type="image/png")
    assert "[image returned by the tool: image/png" in map_result(
        CallToolResult(content=[image]), limit=1_000).output
    assert map_result("not a result", limit=1_000).is_error
