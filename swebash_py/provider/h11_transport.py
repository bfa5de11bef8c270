"""A lean HTTP/1.1 client for the direct backend's one streamed POST: h11 (the
sans-IO protocol library httpx itself runs on) over asyncio streams.

It does what the backend needs from httpx, at a fraction of the start-up cost
(no httpx, httpcore, anyio): TLS as httpx sets it up (certifi's CA bundle, or
``SSL_CERT_FILE`` / ``SSL_CERT_DIR``; hostname checked), the same timeouts
(connect, each read, write), bodies framed by length, by chunks or by the
connection's end, and keep-alive: a connection whose response ended cleanly
serves the next request. Proxies are not its business (see ``proxies``).

One ``Pool`` per event loop. Its idle connections close when the loop shuts
down (``asyncio.run`` cancels the pool's keeper task) or on ``aclose()``; a
connection in use is aborted at once when its exchange fails or is cancelled.
"""

from __future__ import annotations

import asyncio
import os
import select
import ssl
from collections.abc import AsyncIterator
from types import TracebackType
from urllib.parse import SplitResult

import h11

from swebash_py import __version__
from swebash_py.provider import sent
from swebash_py.provider.http_reply import (
    ConnectError,
    ConnectTimeout,
    ReadTimeout,
    Response,
    Timeouts,
    TransportError,
    WriteTimeout,
)

READ_SIZE = 64 * 1024
MAX_HEADER_BYTES = 100 * 1024  # as httpcore
USER_AGENT = f"swebash-py/{__version__}"
Origin = tuple[str, str, int]


def ssl_context() -> ssl.SSLContext:
    """A verifying client context built as httpx 0.28 builds it (``verify=True``,
    ``trust_env``): ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi."""
    if os.environ.get("SSL_CERT_FILE"):
        context = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    elif os.environ.get("SSL_CERT_DIR"):
        context = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    else:
        import certifi

        context = ssl.create_default_context(cafile=certifi.where())
    context.set_alpn_protocols(["http/1.1"])
    return context


class _Disconnected(TransportError):
    """The connection failed before any byte of a response came: on a kept-alive
    connection, the server dropped it while idle and never saw the request."""


class Connection:
    """One HTTP/1.1 connection: h11's state machine over an asyncio stream."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEADER_BYTES)
        self.reused = False
        self.received = False  # any byte of the current response

    def abort(self) -> None:
        """Close the socket now (no TLS goodbye: nothing is in flight worth it)."""
        self.writer.transport.abort()

    def finished(self) -> bool:
        """Whether the request went out whole and the response came to its end."""
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    async def reusable(self) -> bool:
        """Whether an idle connection can take the next request: the last response
        ends in what has already arrived, and the server has neither closed the
        connection nor sent anything after that end."""
        if self.writer.is_closing() or not await self.settle():
            return False
        return self.renew() and self._quiet()

    def _quiet(self) -> bool:
        if self.reader.at_eof():
            return False
        sock = self.writer.get_extra_info("socket")
        if sock is None:
            return True
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    async def send(self, request: h11.Request, body: bytes, timeout: float | None) -> None:
        data = b"".join((self.h11.send(request) or b"", self.h11.send(h11.Data(data=body)) or b"",
                         self.h11.send(h11.EndOfMessage()) or b""))
        try:
            self.writer.write(data)
            async with asyncio.timeout(timeout):
                await self.writer.drain()
        except TimeoutError:
            raise WriteTimeout("timed out sending the request") from None
        except OSError as exc:
            raise _Disconnected(str(exc) or type(exc).__name__) from exc
        sent.notify()  # the warm-up may take the GIL now (provider.sent)

    async def next_event(self, timeout: float | None) -> object:
        """The next response event, reading as needed (each read within ``timeout``)."""
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise TransportError(str(exc)) from exc
            if event is not h11.NEED_DATA:
                return event
            data = await self._read(timeout)
            if not data and self.h11.their_state is h11.SEND_RESPONSE:
                raise self._failed("Server disconnected without sending a response.")
            self.received = self.received or bool(data)
            self.h11.receive_data(data)

    async def _read(self, timeout: float | None) -> bytes:
        try:
            async with asyncio.timeout(timeout):
                return await self.reader.read(READ_SIZE)
        except TimeoutError:
            raise ReadTimeout("timed out waiting for data") from None
        except OSError as exc:
            raise self._failed(str(exc) or type(exc).__name__) from exc

    def _failed(self, detail: str) -> TransportError:
        return TransportError(detail) if self.received else _Disconnected(detail)

    async def settle(self) -> bool:
        """Read on to the end of a response left unfinished, as far as its bytes are
        already here (never waiting): whether the end came."""
        while self.h11.their_state is h11.SEND_BODY:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError:
                return False
            if event is h11.NEED_DATA:
                data = await self._read_ready()
                if not data:
                    return False
                self.h11.receive_data(data)
            elif not isinstance(event, h11.Data | h11.EndOfMessage):
                return False
        return True

    async def _read_ready(self) -> bytes:
        """What has arrived and not been read, or ``b""`` (a read that would wait
        is cancelled at once: ``timeout(0)`` fires only after a suspension)."""
        try:
            async with asyncio.timeout(0):
                return await self.reader.read(READ_SIZE)
        except (TimeoutError, OSError):
            return b""

    def renew(self) -> bool:
        """Ready the connection for another request, if the last one ended cleanly."""
        if self.finished():
            self.h11.start_next_cycle()
            self.received = False
            return True
        return False


class Exchange:
    """``async with pool.post(...) as response``: one request and its response.

    On leaving, the connection goes back to the pool if the response ended
    cleanly (or its end is already received); otherwise it is closed at once,
    which is what cancelling a stream does.
    """

    def __init__(self, pool: Pool, url: SplitResult, headers: dict[str, str], body: bytes,
                 timeouts: Timeouts) -> None:
        self.pool, self.url, self.body, self.timeouts = pool, url, body, timeouts
        self.headers = headers
        self.connection: Connection | None = None

    async def __aenter__(self) -> Response:
        origin = _origin(self.url)
        while True:
            connection = await self.pool.acquire(origin, self.timeouts.connect)
            self.connection = connection
            try:
                return await self._start(connection)
            except _Disconnected:
                connection.abort()
                if not connection.reused:  # a kept-alive one the server dropped: once more
                    raise
            except BaseException:
                connection.abort()
                raise

    async def _start(self, connection: Connection) -> Response:
        try:
            request = self._request()
        except h11.LocalProtocolError as exc:  # a header value no server may receive
            raise TransportError(str(exc)) from exc
        await connection.send(request, self.body, self.timeouts.write)
        event = await connection.next_event(self.timeouts.read)
        while isinstance(event, h11.InformationalResponse):  # 100 Continue and the like
            event = await connection.next_event(self.timeouts.read)
        if not isinstance(event, h11.Response):
            raise TransportError(f"no response from the server ({type(event).__name__})")
        headers: dict[str, str] = {}
        for name, value in event.headers:
            key = name.decode("latin-1")
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        return Response(event.status_code, event.reason.decode("ascii", errors="ignore"),
                        headers, self._body(connection))

    def _request(self) -> h11.Request:
        host = self.url.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        if self.url.port is not None:
            host = f"{host}:{self.url.port}"
        target = (self.url.path or "/") + (f"?{self.url.query}" if self.url.query else "")
        headers = {"host": host, "accept": "*/*", "accept-encoding": "identity",
                   "connection": "keep-alive", "user-agent": USER_AGENT, **self.headers,
                   "content-length": str(len(self.body)), "content-type": "application/json"}
        return h11.Request(method="POST", target=target, headers=list(headers.items()))

    async def _body(self, connection: Connection) -> AsyncIterator[bytes]:
        while True:
            event = await connection.next_event(self.timeouts.read)
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                return
            else:  # not possible mid-body; never spin on it
                raise TransportError(f"the response body ended with {type(event).__name__}")

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        connection, self.connection = self.connection, None
        if connection is None:
            return
        if kind is None or (issubclass(kind, Exception) and connection.finished()):
            # a stream left at its last event ends in the pool: the rest of its
            # body (a chunked stream's terminator) is read when the pool next
            # hands the connection out, by when it has long arrived
            self.pool.release(_origin(self.url), connection)
        else:
            connection.abort()


class Pool:
    """Connections to reuse, bound to the event loop that made them."""

    def __init__(self) -> None:
        self._idle: dict[Origin, list[Connection]] = {}
        self._context: ssl.SSLContext | None = None
        self._keeper: asyncio.Task[None] | None = None
        self.connections_made = 0

    def post(self, url: SplitResult, headers: dict[str, str], body: bytes,
             timeouts: Timeouts) -> Exchange:
        return Exchange(self, url, headers, body, timeouts)

    async def acquire(self, origin: Origin, timeout: float | None) -> Connection:
        idle = self._idle.get(origin, [])
        while idle:
            connection = idle.pop()
            if await connection.reusable():
                connection.reused = True
                return connection
            connection.abort()
        return await self._connect(origin, timeout)

    async def _connect(self, origin: Origin, timeout: float | None) -> Connection:
        scheme, host, port = origin
        context = None
        if scheme == "https":
            context = self._context = self._context or ssl_context()
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=context, limit=READ_SIZE, happy_eyeballs_delay=0.25)
        except TimeoutError:
            raise ConnectTimeout("timed out connecting", timeout or 0.0) from None
        except OSError as exc:  # refused, unknown host, TLS verification failed
            raise ConnectError(str(exc) or type(exc).__name__) from exc
        self.connections_made += 1
        return Connection(reader, writer)

    def release(self, origin: Origin, connection: Connection) -> None:
        self._idle.setdefault(origin, []).append(connection)
        if self._keeper is None:
            self._keeper = asyncio.get_running_loop().create_task(self._keep())
            # held here too: a pool dropped while the loop runs (a new backend)
            # must not have its pending task destroyed ("Task was destroyed but it
            # is pending!" on the REPL's loop)
            _KEEPERS.add(self._keeper)
            self._keeper.add_done_callback(_KEEPERS.discard)

    async def _keep(self) -> None:
        """Wait for the loop's end (``asyncio.run`` cancels this task), then close
        the idle connections, so none is left to a closed loop."""
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            self._close_idle()

    def _close_idle(self) -> None:
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.abort()

    async def aclose(self) -> None:
        self._close_idle()
        if self._keeper is not None:
            self._keeper.cancel()
            self._keeper = None


_KEEPERS: set[asyncio.Task[None]] = set()


def _origin(url: SplitResult) -> Origin:
    port = url.port or (443 if url.scheme == "https" else 80)
    return url.scheme, url.hostname or "", port
