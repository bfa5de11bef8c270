"""The SSE reader against the web-platform-tests ``eventsource/format-*`` vectors
that apply to a client that never reconnects (the vectors' bodies written down
from the wpt test names and behaviour; the reconnect-timing and CORS tests do
not apply). Each body is read whole and cut into single bytes, so a BOM or a
CRLF split across network reads is read the same. ``message.py`` in wpt ends
every body with a line feed, which the bodies here carry."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from swebash_py.errors import NotAStream
from swebash_py.provider.sse import Event, Interpreter, iter_events, text_lines
from swebash_py.provider.streamcheck import check_content_type, check_first_line

BOM = b"\xef\xbb\xbf"
LONG = "x" * 2048


async def _chunks(body: bytes, size: int) -> AsyncIterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start:start + size]


async def read(body: bytes | str) -> list[Event]:
    """The events of ``body``, checked to be the same whole and byte by byte."""
    raw = body.encode() if isinstance(body, str) else body
    whole = [e async for e in iter_events(text_lines(_chunks(raw, len(raw) or 1)))]
    single = [e async for e in iter_events(text_lines(_chunks(raw, 1)))]
    assert whole == single
    return whole


async def data(body: bytes | str) -> list[str]:
    return [event.data for event in await read(body)]


def interpreter_after(body: str) -> Interpreter:
    interpreter = Interpreter()
    for line in body.splitlines():  # bodies here hold no U+2028 and the like
        interpreter.line(line)
    return interpreter


async def test_format_bom_one_leading_bom_is_skipped() -> None:
    # the second BOM is part of a field name, so "data:2" is an unknown field
    assert await data(BOM + b"data:1\n\n" + BOM + b"data:2\n\ndata:3\n\n") == ["1", "3"]


async def test_format_bom_2_only_one_bom_is_skipped() -> None:
    assert await data(BOM + BOM + b"data:1\n\ndata:2\n\ndata:3\n\n") == ["2", "3"]


async def test_format_comments() -> None:
    body = (f"data:1\r:\0\n:\r\ndata:2\n:{LONG}\rdata:3\n:data:fail\r:{LONG}\ndata:4\n"
            "\n")
    assert await data(body) == ["1\n2\n3\n4"]


async def test_format_data_before_final_empty_line_is_discarded() -> None:
    body = "retry:1000\ndata:test1\n\nid:test\ndata:test2"
    assert await read(body) == [Event("message", "test1", "")]
    # the id of the discarded event never took effect
    assert interpreter_after(body).last_event_id == ""


async def test_twin_the_same_event_with_its_blank_line_is_dispatched() -> None:
    body = "retry:1000\ndata:test1\n\nid:test\ndata:test2\n\n"
    assert await read(body) == [Event("message", "test1"), Event("message", "test2", "test")]


async def test_format_field_data() -> None:
    assert await data("data:\n\ndata\ndata\n\ndata:test\n\n") == ["", "\n", "test"]


async def test_format_field_event_empty_is_a_message() -> None:
    assert await read("event: \ndata:data\n\n") == [Event("message", "data")]


async def test_format_field_event() -> None:
    got = await read("event:test\ndata:x\n\ndata:x\n\n")
    assert [(e.type, e.data) for e in got] == [("test", "x"), ("message", "x")]


async def test_format_field_id() -> None:
    got = await read("id: \u2026\nretry: 200\ndata: hello\n\n")
    assert got == [Event("message", "hello", "\u2026")]
    assert interpreter_after("id: \u2026\nretry: 200\ndata: hello\n\n").retry_ms == 200


async def test_format_field_id_2_persists_across_events() -> None:
    got = await read("id: \u2026\ndata: hello\n\ndata: a\n\ndata: b\n\n")
    assert [e.last_event_id for e in got] == ["\u2026"] * 3


@pytest.mark.parametrize(("body", "ids"), [
    ("id: 1\ndata: 1\n\ndata:2\n\n", ["1", "1"]),  # persists
    ("id: 1\ndata: 1\n\nid: 2\ndata:2\n\ndata:3\n\n", ["1", "2", "2"]),  # changes, persists
    ("id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n", ["1", "", ""]),  # resets
], ids=["persists", "changes-and-persists", "resets"])
async def test_format_field_id_3(body: str, ids: list[str]) -> None:
    assert [e.last_event_id for e in await read(body)] == ids


async def test_format_field_id_null_is_ignored() -> None:
    assert await read("id: \0\0\ndata: hello\n\n") == [Event("message", "hello", "")]


async def test_an_id_block_alone_dispatches_nothing_but_sets_the_id() -> None:
    assert await read("id: 7\n\ndata: x\n\n") == [Event("message", "x", "7")]


async def test_format_field_parsing() -> None:
    body = ("data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\r"
            "data:\r\n data:32\ndata:4\n\n")
    assert await data(body) == ["\0\n 2\n1\n3\n\n4"]


@pytest.mark.parametrize(("body", "retry"), [
    ("retry:03000\ndata:x\n\n", 3000),  # format-field-retry
    ("retry:2000\nretry:1000x\ndata:x\n\n", 2000),  # format-field-retry-bogus
    ("retry\ndata:x\n\n", None),  # format-field-retry-empty
    ("retry: 5\ndata:x\n\n", 5),  # one leading space goes with the colon
])
async def test_format_field_retry(body: str, retry: int | None) -> None:
    assert await data(body) == ["x"]
    assert interpreter_after(body).retry_ms == retry


async def test_a_retry_block_alone_dispatches_nothing() -> None:
    assert await data("retry: 3000\n\n\n\ndata: x\n\n") == ["x"]


async def test_format_field_unknown() -> None:
    body = "data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test\n\n"
    assert await data(body) == ["test\n\ntest"]


async def test_format_leading_space() -> None:
    assert await data("data:\ttest\rdata: \ndata:test\n\n") == ["\ttest\n\ntest"]


async def test_format_newlines() -> None:
    assert await data(b"data:test\r\ndata\ndata:test\r\n\r\n") == ["test\n\ntest"]


async def test_format_null_character() -> None:
    assert await data(b"data:\x00\n\n\n") == ["\0"]


async def test_format_utf_8_whatever_the_charset() -> None:
    check_content_type("text/event-stream;charset=windows-1252", "host")
    assert await data(b"data:ok\xe2\x80\xa6\n\n") == ["ok\u2026"]


async def test_invalid_utf_8_is_replaced_not_fatal() -> None:
    assert await data(b"data: a\xff\xfeb\n\ndata: c\xe2\x80\n\n") == ["a\ufffd\ufffdb", "c\ufffd"]


async def test_u2028_in_json_does_not_split_the_line() -> None:
    assert await data('data: {"t": "a\u2028b\u0085c"}\n\n'.encode()) == [
        '{"t": "a\u2028b\u0085c"}']


@pytest.mark.parametrize("kind", ["text/event-stream;", "text/event-stream;charset=utf-8",
                                  "text/event-stream; charset=UTF-8"])
def test_format_mime_valid(kind: str) -> None:
    check_content_type(kind, "host")  # format-mime-trailing-semicolon, -valid-1, -valid-2


def test_format_mime_bogus() -> None:
    with pytest.raises(NotAStream):
        check_content_type("text/x-bogus", "host")


@pytest.mark.parametrize(("first", "want"), [
    ("x-served-by: edge-7", "1"), ("retry: 1000", "1"), ("id: 1", "1"), (": comment", "1"),
    ("event: message_start", "1"), ("data: {}", "{}\n1")])
async def test_an_unknown_or_odd_first_line_is_a_stream(first: str, want: str) -> None:
    check_first_line(first, "host")
    assert await data(BOM + f"{first}\ndata: 1\n\n".encode()) == [want]


async def test_a_body_opening_with_an_unknown_field_keeps_every_event() -> None:
    assert await data(BOM + b"x-served-by: edge-7\n\ndata: 1\n\ndata: 2\n\n") == ["1", "2"]
