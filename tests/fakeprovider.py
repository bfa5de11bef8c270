"""A scripted model provider on 127.0.0.1 speaking the real streaming wire formats.

* ``POST /chat/completions`` or ``/v1/chat/completions``: OpenAI Chat Completions SSE.
* ``POST /v1/messages`` or ``/messages``: Anthropic Messages SSE.

Replies are scripted provider-neutrally (``Reply`` / ``ErrorReply``), or are
recorded bodies replayed as they are (``RawReply``, on any path), and queued;
each request pops the next one (an empty queue answers 500 "no scripted reply").
Every request is recorded (``FakeProvider.requests``; header names lower-cased).

Standalone: ``python tests/fakeprovider.py --port 0 --script script.json`` prints
``READY http://127.0.0.1:PORT``. The script is a list of reply dicts (``{"error":
{...}}`` for an ``ErrorReply``, ``{"raw": FILE}`` for a ``RawReply``), or
``{"replies": [...], "repeat_last": true}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

OPENAI_PATHS = ("/chat/completions", "/v1/chat/completions")
ANTHROPIC_PATHS = ("/v1/messages", "/messages")
FLUSH_BYTES = 32 * 1024


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, may be malformed on purpose


@dataclass
class Reply:
    """One streamed reply. ``cut_after`` / ``stall_after`` / ``error_after`` count
    content fragments (text, thinking and argument fragments)."""

    text: str = ""
    thinking: str = ""
    signature: str = "sig-1"
    tool_calls: list[ToolCall] = field(default_factory=list)
    chunk_size: int = 8
    interleave: bool = False
    usage: tuple[int, int] = (10, 5)
    cache_read: int = 0
    cache_write: int = 0
    finish: str | None = None
    delay: float = 0.0
    cut_after: int | None = None
    stall_after: int | None = None
    stall_seconds: float = 30.0
    error_after: int | None = None  # send an SSE error event after N fragments
    gate: threading.Event | None = None  # the reply waits for it (30 s at most) before starting
    # A misbehaving server instead of a reply: "trickle" (200, then a byte every
    # ``delay`` s (default 0.05) that never completes an event), "silent" (no
    # answer at all for ``stall_seconds``), "html" (200 with an HTML page).
    mode: str | None = None

    def finish_reason(self) -> str:
        """The neutral finish reason: stop, tool_calls or length."""
        neutral = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
        if self.finish:
            return neutral.get(self.finish, self.finish)
        return "tool_calls" if self.tool_calls else "stop"


@dataclass
class ErrorReply:
    """A non-200 answer. ``body=None`` gives a realistic body in the provider's shape."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | str | None = None
    message: str | None = None
    kind: str | None = None  # "context_length" for the context-window 400

    @classmethod
    def context_exceeded(cls) -> ErrorReply:
        return cls(400, kind="context_length")


@dataclass
class RawReply:
    """A recorded response body replayed byte for byte on any path (``tests/streams``).

    ``parts`` splits the body into that many chunked writes, so a parser sees
    events cut at arbitrary points as on a real network."""

    body: str | bytes  # bytes: sent as they are (a body that is not valid UTF-8)
    status: int = 200
    content_type: str = "text/event-stream; charset=utf-8"
    parts: int = 7


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    disconnected: bool = False  # the client closed the connection mid-reply
    arrived: float = 0.0  # time.monotonic() when the request was read (whole-process benches)
    first_byte: float | None = None  # time.monotonic() when the reply's first event went out


# ---------------------------------------------------------------- neutral fragments


def _chunks(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i:i + size] for i in range(0, len(text), size)]


def _tool_fragments(reply: Reply) -> Iterator[tuple[str, int, str]]:
    """("start", i, "") and ("args", i, fragment) items, interleaved if asked."""
    parts = [_chunks(c.arguments, reply.chunk_size) for c in reply.tool_calls]
    if not reply.interleave:
        for i, frags in enumerate(parts):
            yield "start", i, ""
            for frag in frags:
                yield "args", i, frag
        return
    for i in range(len(parts)):
        yield "start", i, ""
    for step in range(max((len(p) for p in parts), default=0)):
        for i, frags in enumerate(parts):
            if step < len(frags):
                yield "args", i, frags[step]


# ---------------------------------------------------------------- OpenAI format


def _openai_events(reply: Reply, req: dict[str, Any]) -> Iterator[tuple[bool, str]]:
    """(is_fragment, sse_text) items of an OpenAI chat.completion.chunk stream."""
    model = json.dumps(req.get("model", "fake"))
    head = ('data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,'
            f'"model":{model},"choices":[{{"index":0,"delta":')
    tail = ',"finish_reason":null}]}\n\n'

    def delta(d: dict[str, Any]) -> str:
        return head + json.dumps(d) + tail

    yield False, delta({"role": "assistant", "content": ""})
    for frag in _chunks(reply.thinking, reply.chunk_size):
        yield True, head + '{"reasoning_content":' + json.dumps(frag) + "}" + tail
    for frag in _chunks(reply.text, reply.chunk_size):
        yield True, head + '{"content":' + json.dumps(frag) + "}" + tail
    for what, i, frag in _tool_fragments(reply):
        call = reply.tool_calls[i]
        if what == "start":
            fn = {"name": call.name, "arguments": ""}
            yield False, delta({"tool_calls": [
                {"index": i, "id": call.id, "type": "function", "function": fn}]})
        else:
            yield True, delta({"tool_calls": [{"index": i, "function": {"arguments": frag}}]})
    yield False, head + "{}" + f',"finish_reason":"{reply.finish_reason()}"}}]}}\n\n'
    if (req.get("stream_options") or {}).get("include_usage"):
        inp, out = reply.usage
        usage: dict[str, Any] = {"prompt_tokens": inp, "completion_tokens": out,
                                 "total_tokens": inp + out}
        if reply.cache_read:
            usage["prompt_tokens_details"] = {"cached_tokens": reply.cache_read}
        yield False, ('data: {"id":"chatcmpl-fake","object":"chat.completion.chunk",'
                      f'"created":0,"model":{model},"choices":[],"usage":'
                      + json.dumps(usage) + "}\n\n")
    yield False, "data: [DONE]\n\n"


def _openai_error(status: int, message: str, kind: str | None) -> dict[str, Any]:
    types = {400: "invalid_request_error", 401: "invalid_request_error",
             403: "permission_error", 404: "invalid_request_error",
             429: "requests", 500: "server_error", 503: "server_error"}
    codes = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
    code = "context_length_exceeded" if kind == "context_length" else codes.get(status)
    return {"error": {"message": message, "type": types.get(status, "server_error"),
                      "param": "messages" if kind else None, "code": code}}


# ---------------------------------------------------------------- Anthropic format


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _anthropic_events(reply: Reply, req: dict[str, Any]) -> Iterator[tuple[bool, str]]:
    """(is_fragment, sse_text) items of an Anthropic Messages stream."""
    inp, out = reply.usage
    # ``usage`` counts the whole prompt (as OpenAI's prompt_tokens); Anthropic's
    # input_tokens leaves out what was read from or written to the cache.
    uncached = max(0, inp - reply.cache_read - reply.cache_write)
    usage = {"input_tokens": uncached, "output_tokens": 1,
             "cache_creation_input_tokens": reply.cache_write,
             "cache_read_input_tokens": reply.cache_read}
    yield False, _sse("message_start", {"type": "message_start", "message": {
        "id": "msg_fake", "type": "message", "role": "assistant",
        "model": req.get("model", "fake"), "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": usage}})
    yield False, _sse("ping", {"type": "ping"})
    index = 0

    def block(kind: str, start: dict[str, Any], dkind: str, key: str,
              frags: list[str]) -> Iterator[tuple[bool, str]]:
        yield False, _sse("content_block_start", {"type": "content_block_start",
                                                  "index": index, "content_block": start})
        pre = ('event: content_block_delta\ndata: {"type":"content_block_delta","index":'
               f'{index},"delta":{{"type":"{dkind}","{key}":')
        for frag in frags:
            yield True, pre + json.dumps(frag) + "}}\n\n"
        if kind == "thinking":
            yield False, _sse("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "signature_delta", "signature": reply.signature}})
        yield False, _sse("content_block_stop", {"type": "content_block_stop", "index": index})

    if reply.thinking:
        yield from block("thinking", {"type": "thinking", "thinking": ""}, "thinking_delta",
                         "thinking", _chunks(reply.thinking, reply.chunk_size))
        index += 1
    if reply.text:
        yield from block("text", {"type": "text", "text": ""}, "text_delta", "text",
                         _chunks(reply.text, reply.chunk_size))
        index += 1
    for call in reply.tool_calls:
        start = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        yield from block("tool_use", start, "input_json_delta", "partial_json",
                         _chunks(call.arguments, reply.chunk_size))
        index += 1
    stop = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
    reason = reply.finish_reason()
    yield False, _sse("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop.get(reason, reason), "stop_sequence": None},
        "usage": {"output_tokens": out}})
    yield False, _sse("message_stop", {"type": "message_stop"})


def _anthropic_error(status: int, message: str, kind: str | None) -> dict[str, Any]:
    types = {400: "invalid_request_error", 401: "authentication_error",
             403: "permission_error", 404: "not_found_error", 413: "request_too_large",
             429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
    return {"type": "error", "error": {"type": types.get(status, "api_error"),
                                       "message": message}}


def _default_message(status: int, kind: str | None, anthropic: bool) -> str:
    if kind == "context_length":
        if anthropic:
            return "prompt is too long: 215017 tokens > 200000 maximum"
        return ("This model's maximum context length is 128000 tokens. However, your "
                "messages resulted in 130291 tokens. Please reduce the length of the "
                "messages.")
    return {400: "Invalid request", 401: "Incorrect API key provided: k***",
            403: "Permission denied", 404: "The model `x` does not exist",
            429: "Rate limit reached, please try again later",
            500: "The server had an error processing your request",
            503: "Service unavailable", 529: "Overloaded"}.get(status, f"HTTP {status}")


# ---------------------------------------------------------------- the server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        """A models list (``ai doctor``'s probe; it spends no tokens), recorded."""
        self.server.provider._next_reply_get(RecordedRequest(
            self.path, {k.lower(): v for k, v in self.headers.items()}, {},
            arrived=time.monotonic()))
        if self.path.rstrip("/") not in ("/models", "/v1/models"):
            self.send_error(404)
            return
        body = json.dumps({"object": "list", "data": [
            {"id": "x", "object": "model", "owned_by": "fake"}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        record = RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, body,
                                 arrived=time.monotonic())
        reply = self.server.provider._next_reply(record)
        anthropic = path in ANTHROPIC_PATHS
        if isinstance(reply, RawReply):
            self._send_raw(reply)
        elif path not in OPENAI_PATHS + ANTHROPIC_PATHS:
            self._send_error(ErrorReply(404, message=f"no such path {path}"), anthropic)
        elif reply is None:
            self._send_error(ErrorReply(500, message="no scripted reply"), anthropic)
        elif isinstance(reply, ErrorReply):
            self._send_error(reply, anthropic)
        else:
            events = (_anthropic_events if anthropic else _openai_events)(reply, body)
            if reply.gate is not None:
                reply.gate.wait(30)
            try:
                if reply.mode:
                    return self._misbehave(reply)
                self._stream(reply, events, anthropic, record)
            except OSError:  # the client went away
                record.disconnected = True
                self.server.provider._note_disconnect()
                self.close_connection = True

    def _send_error(self, err: ErrorReply, anthropic: bool) -> None:
        body = err.body
        if body is None:
            msg = err.message or _default_message(err.status, err.kind, anthropic)
            body = (_anthropic_error if anthropic else _openai_error)(err.status, msg, err.kind)
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(err.status)
        ctype = "text/plain" if isinstance(body, str) else "application/json"
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        for k, v in err.headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, reply: RawReply) -> None:
        data = reply.body if isinstance(reply.body, bytes) else reply.body.encode()
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        step = max(1, -(-len(data) // max(1, reply.parts)))
        for start in range(0, len(data), step):
            piece = data[start:start + step]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def _stream(self, reply: Reply, events: Iterator[tuple[bool, str]],
                anthropic: bool, record: RecordedRequest) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        stop = self.server.provider._stopping
        ttft = self.server.provider.ttft
        if ttft > 0:  # the model "thinks": headers at once, the first event later
            self.wfile.flush()
            if stop.wait(ttft):
                return self._cut([])
        record.first_byte = time.monotonic()
        buf: list[str] = []
        size = 0
        frags = 0
        for is_frag, text in events:
            if is_frag:
                if frags == reply.cut_after:
                    return self._cut(buf)
                if frags == reply.stall_after:
                    self._flush(buf)
                    self._stall(reply.stall_seconds)
                    return self._cut([])
                if frags == reply.error_after:
                    buf.append(_mid_stream_error(anthropic))
                    return self._cut(buf)
                frags += 1
            buf.append(text)
            size += len(text)
            if reply.delay > 0:
                self._flush(buf)
                size = 0
                if stop.wait(reply.delay):
                    return self._cut([])
            elif size >= FLUSH_BYTES:
                self._flush(buf)
                size = 0
        self._flush(buf)
        self.wfile.write(b"0\r\n\r\n")

    def _misbehave(self, reply: Reply) -> None:
        if reply.mode == "silent":
            self._stall(reply.stall_seconds)
            return self._cut([])
        if reply.mode == "html":
            page = b"<!DOCTYPE html><html><body><h1>Sign in to the proxy</h1></body></html>"
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return None
        self.send_response(200)  # trickle
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        stop = self.server.provider._stopping
        pattern = b'data: {"choices": [{"delta": {"content": "never ends'
        n = 0
        while not stop.wait(reply.delay or 0.05):
            self._flush([pattern[n % len(pattern):n % len(pattern) + 1].decode()])
            n += 1
        return self._cut([])

    def _flush(self, buf: list[str]) -> None:
        if buf:
            data = "".join(buf).encode()
            buf.clear()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _cut(self, buf: list[str]) -> None:
        """Close the connection abruptly: no finish, no terminating chunk."""
        self._flush(buf)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _stall(self, seconds: float) -> None:
        """Send nothing for ``seconds``; raise OSError if the client closes first."""
        stop = self.server.provider._stopping
        deadline = threading.Event()
        timer = threading.Timer(seconds, deadline.set)
        timer.start()
        try:
            while not deadline.is_set() and not stop.is_set():
                ready, _, _ = select.select([self.connection], [], [], 0.05)
                if ready and not self.connection.recv(1, socket.MSG_PEEK):
                    raise ConnectionResetError("client closed during stall")
        finally:
            timer.cancel()


def _shut_down_now(server: ThreadingHTTPServer) -> None:
    """``shutdown()`` without waiting out the serve loop's poll interval: once
    it has asked the loop to stop, a connection wakes the loop to see that."""
    stopper = threading.Thread(target=server.shutdown)
    stopper.start()
    while stopper.is_alive():  # the server listens on 127.0.0.1
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", server.server_port), timeout=1).close()
        stopper.join(0.01)


def _mid_stream_error(anthropic: bool) -> str:
    if anthropic:
        return _sse("error", {"type": "error", "error": {"type": "overloaded_error",
                                                        "message": "Overloaded"}})
    return "data: " + json.dumps({"error": {"message": "The server had an error while "
                                            "processing your request", "type": "server_error",
                                            "param": None, "code": None}}) + "\n\n"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    provider: FakeProvider

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client hanging up is fine
            super().handle_error(request, client_address)


class FakeProvider:
    """The scripted server. Use as a context manager or ``start()`` / ``stop()``."""

    def __init__(self, port: int = 0, repeat_last: bool = False, ttft: float = 0.0) -> None:
        self._port = port
        self.repeat_last = repeat_last
        self.ttft = ttft  # seconds from a request to its reply's first event
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        self._replies: deque[Reply | ErrorReply | RawReply] = deque()
        self._last: Reply | ErrorReply | RawReply | None = None
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def queue(self, *replies: Reply | ErrorReply | RawReply) -> None:
        with self._cond:
            self._replies.extend(replies)

    def start(self) -> FakeProvider:
        self._server = _Server(("127.0.0.1", self._port), _Handler)
        self._server.provider = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.5}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            _shut_down_now(self._server)
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_requests(self, n: int, timeout: float = 10) -> None:
        """Block until ``n`` requests have arrived (AssertionError on timeout)."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= n, timeout):
                raise AssertionError(f"{len(self.requests)} requests arrived, wanted {n}")

    def wait_for_disconnect(self, n: int = 1, timeout: float = 10) -> None:
        """Block until clients have closed ``n`` connections in mid-reply."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.disconnects >= n, timeout):
                raise AssertionError(f"{self.disconnects} disconnects seen, wanted {n}")

    def _next_reply(self, record: RecordedRequest) -> Reply | ErrorReply | RawReply | None:
        with self._cond:
            self.requests.append(record)
            reply: Reply | ErrorReply | RawReply | None = None
            if self._replies:
                reply = self._last = self._replies.popleft()
            elif self.repeat_last:
                reply = self._last
            self._cond.notify_all()
            return reply

    def _next_reply_get(self, record: RecordedRequest) -> None:
        """A GET is recorded but takes no scripted reply."""
        with self._cond:
            self.requests.append(record)
            self._cond.notify_all()

    def _note_disconnect(self) -> None:
        with self._cond:
            self.disconnects += 1
            self._cond.notify_all()


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A started FakeProvider, stopped after the test."""
    with FakeProvider() as fp:
        yield fp


# ---------------------------------------------------------------- standalone


def reply_from_dict(d: dict[str, Any]) -> Reply | ErrorReply | RawReply:
    """A reply from its JSON script form (``{"raw": "tests/streams/x.sse"}``
    replays a recorded body)."""
    if "error" in d:
        return ErrorReply(**d["error"])
    if "raw" in d:
        with open(d["raw"], encoding="utf-8") as f:
            return RawReply(f.read())
    d = dict(d)
    d["tool_calls"] = [ToolCall(**c) for c in d.get("tool_calls", [])]
    if "usage" in d:
        d["usage"] = tuple(d["usage"])
    return Reply(**d)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", required=True, help="JSON list of replies")
    ap.add_argument("--repeat-last", action="store_true")
    ap.add_argument("--ttft", type=float, default=0.0,
                    help="time to first token: seconds before a reply's first event")
    args = ap.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        script = json.load(f)
    repeat = args.repeat_last
    if isinstance(script, dict):
        repeat = repeat or bool(script.get("repeat_last"))
        script = script.get("replies", [])
    fp = FakeProvider(args.port, repeat_last=repeat, ttft=args.ttft)
    fp.queue(*(reply_from_dict(d) for d in script))
    fp.start()
    print(f"READY {fp.url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fp.stop()


if __name__ == "__main__":
    main()
