"""A 200 must carry the event stream we asked for: an HTML page (a proxy, a
login portal) is a clear error at once, never retried."""

from __future__ import annotations

from swebash_py.errors import NotAStream

STREAM_TYPES = ("text/event-stream", "application/x-ndjson", "application/json", "text/plain")
# A body that opens like a page or a JSON document is not a stream. Any other
# line is an SSE field by the spec (no colon: a name with an empty value;
# an unknown name: ignored), so it cannot be told from a stream and is let through.
PAGE_STARTS = ("<", "{", "[")


def check_content_type(content_type: str | None, source: str) -> None:
    """``NotAStream`` when the response's type is plainly not a stream."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind and not kind.startswith(STREAM_TYPES):
        raise NotAStream(f"{source} answered 200 with {kind}, not an event stream: check "
                         "api_base (a proxy or a login page in the way?)", status=200)


def check_first_line(line: str, source: str) -> None:
    """``NotAStream`` when the first line of the body opens a page or a JSON
    document, not Server-Sent Events."""
    if line.lstrip().startswith(PAGE_STARTS):
        raise NotAStream(f"{source} answered 200 with something that is not an event stream "
                         f"({line.strip()[:60]!r}): check api_base", status=200)
