"""A 200 must carry the event stream we asked for: an HTML page (a proxy, a
login portal) is a clear error at once, never retried."""

from __future__ import annotations

from swebash_py.errors import NotAStream

STREAM_TYPES = ("text/event-stream", "application/x-ndjson", "application/json", "text/plain")
SSE_FIELDS = ("data:", "event:", "id:", "retry:", ":")


def check_content_type(content_type: str | None, source: str) -> None:
    """``NotAStream`` when the response's type is plainly not a stream."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind and not kind.startswith(STREAM_TYPES):
        raise NotAStream(f"{source} answered 200 with {kind}, not an event stream: check "
                         "api_base (a proxy or a login page in the way?)", status=200)


def check_first_line(line: str, source: str) -> None:
    """``NotAStream`` when the first line of the body is not Server-Sent Events."""
    if not line.startswith(SSE_FIELDS):
        raise NotAStream(f"{source} answered 200 with something that is not an event stream "
                         f"({line.strip()[:60]!r}): check api_base", status=200)
