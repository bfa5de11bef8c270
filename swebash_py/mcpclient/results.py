"""A server's ``CallToolResult`` as our ``ToolResult``.

Text goes to the model as it is; an image (png, jpeg, gif, webp) is stored
like an attached one and handed on in ``metadata["images"]`` (the loop sends
it to a model that takes images), with a note in the text; audio and images
that cannot be sent become notes; resource links and embedded resources are
named, with their text when they carry some; structured content is used when
there is no other content; ``isError`` marks the result as an error. Every
string is neutralised (no escapes or control characters), and the whole is
capped at ``limit`` characters like a command's output. Duck-typed, so this
module never imports the SDK.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from swebash_py.engine.messages import ImageBlock
from swebash_py.process.values import redact
from swebash_py.text.sanitize import neutralize, one_line
from swebash_py.text.truncate import cap_middle
from swebash_py.tools.base import ToolResult


def map_result(result: Any, limit: int) -> ToolResult:
    """The tool result for one ``CallToolResult`` (anything else: an error)."""
    content = getattr(result, "content", None)
    if not isinstance(content, list):
        return ToolResult(f"the server's answer was not a tool result: {one_line(repr(result))}",
                          is_error=True)
    images: list[ImageBlock] = []
    parts = [_image(item, images) if getattr(item, "type", None) == "image" else _part(item)
             for item in content]
    structured = getattr(result, "structured_content", None)
    if not any(parts) and structured is not None:
        parts = [json.dumps(structured, ensure_ascii=False, default=str)]
    text = "\n".join(p for p in parts if p) or "(the tool returned no content)"
    is_error = bool(getattr(result, "is_error", False))
    # redacted before the cap: a value cut in two could not be found afterwards
    return ToolResult(cap_middle(redact(neutralize(text)), limit), is_error=is_error,
                      metadata={"images": images} if images else {})


def _image(item: Any, images: list[ImageBlock]) -> str:
    """An image content item: kept in ``images`` when it is one we can send."""
    from swebash_py.errors import ImageError
    from swebash_py.images import from_data

    try:
        block = from_data(base64.b64decode(str(getattr(item, "data", "") or ""),
                                           validate=True), "the tool's image")
    except (ImageError, ValueError) as exc:
        # our own words (whole: the too-large case names the extra to install)
        return _part(item) + f" ({one_line(str(exc), 300)})"
    images.append(block)
    size = len(block.data) * 3 // 4
    return f"[image returned by the tool: {block.media_type}, about {size:,} bytes]"


def _part(item: Any) -> str:
    kind = getattr(item, "type", None)
    if kind == "text":
        return str(getattr(item, "text", ""))
    if kind in ("image", "audio"):
        mime = one_line(str(getattr(item, "mime_type", "") or "unknown type"), 60)
        size = len(str(getattr(item, "data", "") or "")) * 3 // 4
        return f"[{kind} returned by the tool: {mime}, about {size:,} bytes; not shown]"
    if kind == "resource_link":
        name = one_line(str(getattr(item, "name", "") or ""), 80)
        uri = one_line(str(getattr(item, "uri", "")), 200)
        description = getattr(item, "description", None)
        extra = f" ({one_line(str(description), 120)})" if description else ""
        return f"[resource link: {name} {uri}{extra}]"
    if kind == "resource":
        resource = getattr(item, "resource", None)
        uri = one_line(str(getattr(resource, "uri", "")), 200)
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return f"[resource {uri}]\n{text}"
        return f"[binary resource {uri}; not shown]"
    return f"[content of type {one_line(str(kind), 40)}; not shown]"
