"""Server-Sent Events read as the specification says: a line with no colon is a
field name with an empty value, a field we do not know is ignored; only a body
that opens like a page or a JSON document is "not an event stream". Unit tests
on the reader, and through the installed `ai` with a recorded stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swebash_py.errors import NotAStream
from swebash_py.provider.sse import field, iter_sse
from swebash_py.provider.streamcheck import check_first_line
from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, RawReply

STREAMS = Path(__file__).parent.parent / "streams"


async def _lines(*lines: str) -> AsyncIterator[str]:
    for line in lines:
        yield line


async def _events(*lines: str) -> list[tuple[str, str]]:
    return [event async for event in iter_sse(_lines(*lines))]


def test_fields_by_the_spec() -> None:
    assert field("data: x") == ("data", "x")
    assert field("data:  x") == ("data", " x")  # one space only
    assert field("data") == ("data", "")
    assert field("keepalive") == ("keepalive", "")
    assert field(": comment") == ("", "comment")


async def test_colonless_and_unknown_fields_are_ignored() -> None:
    got = await _events("keepalive", "", "ping", "x-vendor: 1", "data: {}", "", "retry", "")
    assert got == [("message", "{}")]


async def test_a_bare_data_line_is_an_empty_data_line() -> None:
    assert await _events("data: a", "data", "data: b", "") == [("message", "a\n\nb")]


async def test_twin_a_normal_stream_parses() -> None:
    got = await _events(": hello", "event: delta", "data: 1", "id: 7", "", "data: 2", "")
    assert got == [("delta", "1"), ("message", "2")]


@pytest.mark.parametrize("line", ["keepalive", "data", "event", ": OPENROUTER PROCESSING"])
def test_a_colonless_first_line_is_a_stream(line: str) -> None:
    check_first_line(line, "host")


@pytest.mark.parametrize("line", ["<!DOCTYPE html>", "  <html>", '{"error": "nope"}'])
def test_twin_a_page_is_still_not_a_stream(line: str) -> None:
    with pytest.raises(NotAStream, match="not an event stream"):
        check_first_line(line, "host")


def test_ai_answers_through_a_stream_that_opens_with_a_colonless_line(
        fake_provider: FakeProvider, workspace: Path) -> None:
    body = (STREAMS / "openrouter_reasoning.sse").read_text()
    fake_provider.queue(RawReply("keepalive\n\n" + body))
    result = run_ai(*model_args(fake_provider), "hi", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "not an event stream" not in result.stderr and result.stdout.strip()


def test_twin_ai_still_refuses_a_page_sent_as_plain_text(fake_provider: FakeProvider,
                                                         workspace: Path) -> None:
    fake_provider.queue(RawReply("<!DOCTYPE html>\n<html>login</html>\n",
                                 content_type="text/plain"))
    result = run_ai(*model_args(fake_provider), "hi", cwd=workspace)
    assert result.returncode != 0 and "not an event stream" in result.stderr
