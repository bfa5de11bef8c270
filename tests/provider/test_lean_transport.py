"""The direct backend's lean transport (h11 over asyncio streams): what a one-shot
imports, body framings, keep-alive, the httpx path behind a proxy, and TLS."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import os
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from swebash_py.engine.messages import Message
from swebash_py.errors import ProviderUnavailable, StreamCut
from swebash_py.events import Finish, ProviderEvent, TextDelta
from swebash_py.provider.base import ChatRequest
from swebash_py.provider.direct import DirectBackend
from swebash_py.provider.h11_transport import Connection, Pool
from swebash_py.provider.sse import text_lines
from tests.fakeprovider import FakeProvider, Reply, _openai_events

TRANSPORT_MODULES = ("httpx", "httpcore", "anyio", "h2", "h11", "certifi")
ONE_SHOT = ("import sys\nfrom swebash_py.cli.main import main\n"
            "try:\n    main(['-m', 'openai/x', '--api-base', sys.argv[1], 'hi'])\n"
            "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
            f"print(sorted(m for m in {TRANSPORT_MODULES!r} if m in sys.modules),"
            " file=sys.stderr)\n")


def one_shot(fake_provider: FakeProvider, env: dict[str, str]) -> str:
    """Run a one-shot in a fresh interpreter: the transport modules it imported."""
    fake_provider.queue(Reply(text="fine"))
    done = subprocess.run([sys.executable, "-c", ONE_SHOT, fake_provider.url],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, check=True,
                          env={**os.environ, **env})
    assert done.stdout == "fine\n"
    return done.stderr.strip().splitlines()[-1]


def test_a_one_shot_imports_neither_httpx_nor_httpcore_nor_anyio(
        fake_provider: FakeProvider) -> None:
    modules = one_shot(fake_provider, {})
    assert modules == "['h11']"  # and no CA bundle (certifi) for a plain-http server


def test_the_twin_a_proxy_in_the_environment_takes_the_httpx_path(
        fake_provider: FakeProvider) -> None:
    """With a proxy set, httpx decides (here NO_PROXY sends it straight to the
    server): the check above would see httpx and its stack."""
    modules = one_shot(fake_provider, {"HTTP_PROXY": "http://127.0.0.1:9",
                                          "NO_PROXY": "127.0.0.1,localhost"})
    # h2: httpcore imports its HTTP/2 side whenever h2 is installed (it is, by litellm's deps)
    assert modules == "['anyio', 'certifi', 'h11', 'h2', 'httpcore', 'httpx']"


def kept_after_the_loop(fake_provider: FakeProvider) -> tuple[int, bool]:
    """Answer one request on a loop, end the loop as ``asyncio.run`` does (cancel
    what still runs): (the connections kept for reuse, whether they were closed).
    A stream left at ``[DONE]`` is kept whether or not its terminator came yet."""
    backend = DirectBackend("openai")

    async def go() -> list[Connection]:
        fake_provider.queue(Reply(text="fine"))
        assert answer(await ask(backend, fake_provider.url)) == "fine"
        assert backend._pool is not None
        return [c for kept in backend._pool._idle.values() for c in kept]

    loop = asyncio.new_event_loop()
    try:
        kept = loop.run_until_complete(go())
        tasks = asyncio.all_tasks(loop)
        for task in tasks:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        closed = all(c.writer.transport.is_closing() for c in kept)
        for connection in kept:  # the twin's, left open: closed here, not leaked
            connection.abort()
        loop.run_until_complete(asyncio.sleep(0))
    finally:
        loop.close()
    return len(kept), closed


def test_a_kept_connection_is_closed_when_the_loop_ends(fake_provider: FakeProvider) -> None:
    assert kept_after_the_loop(fake_provider) == (1, True)


def test_the_twin_without_the_pool_keeper_it_would_be_left_open(
        fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Pool, "release", lambda self, origin, connection: self._idle.setdefault(
        origin, []).append(connection))
    assert kept_after_the_loop(fake_provider) == (1, False)


# ---------------------------------------------------------------- a raw loopback server

SSE = "".join(text for _, text in _openai_events(
    Reply(text="Hello, wörld!", chunk_size=4), {"model": "m"}))


def content_length(body: str, *headers: str) -> bytes:
    data = body.encode()
    head = ["HTTP/1.1 200 OK", "content-type: text/event-stream",
            f"content-length: {len(data)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


def chunked(body: str, size: int = 7) -> bytes:
    data = body.encode()
    parts = [data[i:i + size] for i in range(0, len(data), size)]
    head = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n")
    return head + b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def close_delimited(body: str) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + body.encode()


class RawServer:
    """Answers each request with the next scripted bytes; counts connections.
    ``close_after``: close the connection after each answer (saying so or not)."""

    def __init__(self, *answers: bytes, close_after: bool = False,
                 tls: ssl.SSLContext | None = None) -> None:
        self.answers = list(answers)
        self.close_after = close_after
        self.tls = tls
        self.connections = 0
        self.requests: list[bytes] = []

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        port = self.server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.answers:
                self.requests.append(await read_request(reader))
                writer.write(self.answers.pop(0))
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def stop(self) -> None:
        self.server.close()
        await self.server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request (head and body) from the client."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    return head + await reader.readexactly(length)


@pytest.fixture
async def backend() -> AsyncIterator[DirectBackend]:
    b = DirectBackend("openai")
    yield b
    await b.aclose()


async def ask(backend: DirectBackend, url: str) -> list[ProviderEvent]:
    request = ChatRequest(model="openai/m", messages=[Message.user("hi")], api_base=url,
                          connect_timeout=5, stall_timeout=10)
    return [event async for event in backend.stream(request)]


def answer(events: list[ProviderEvent]) -> str:
    assert events[-1] == Finish("stop")
    return "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.parametrize("framing", [content_length, chunked, close_delimited])
async def test_each_body_framing(backend: DirectBackend, framing: Any) -> None:
    server = RawServer(framing(SSE.replace("\n", "\r\n")), close_after=framing is close_delimited)
    url = await server.start()
    try:
        assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()
    request = server.requests[0].decode()
    assert request.startswith("POST /chat/completions HTTP/1.1\r\n")
    assert "accept-encoding: identity" in request and '"model":"m"' in request


async def test_a_body_cut_short_is_a_broken_stream(backend: DirectBackend) -> None:
    whole = content_length(SSE)
    server = RawServer(whole[:len(whole) - 40], close_after=True)
    url = await server.start()
    try:
        with pytest.raises(StreamCut, match="broke: peer closed connection"):
            await ask(backend, url)
    finally:
        await server.stop()


async def test_an_interim_100_continue_is_skipped(backend: DirectBackend) -> None:
    server = RawServer(b"HTTP/1.1 100 Continue\r\n\r\n" + content_length(SSE))
    url = await server.start()
    try:
        assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()


async def two_rounds(backend: DirectBackend, server: RawServer) -> int:
    """Ask ``server`` twice in a row; the connections it saw."""
    url = await server.start()
    try:
        for _ in range(2):
            assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()
    return server.connections


@pytest.mark.parametrize("framing", [content_length, chunked])
async def test_the_next_request_reuses_the_connection(backend: DirectBackend,
                                                      framing: Any) -> None:
    assert await two_rounds(backend, RawServer(framing(SSE), framing(SSE))) == 1


class LateTerminator(RawServer):
    """A chunked stream whose closing ``0\\r\\n\\r\\n`` waits for ``release``: the
    client stops reading at ``[DONE]`` before the end of the body has come."""

    def __init__(self) -> None:
        whole = chunked(SSE)
        super().__init__(whole[:-5], whole)
        self.release = asyncio.Event()
        self.sent_end = asyncio.Event()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            self.requests.append(await read_request(reader))
            writer.write(self.answers.pop(0))
            await self.release.wait()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            self.sent_end.set()
            self.requests.append(await read_request(reader))  # the next, on this connection
            writer.write(self.answers.pop(0))
            await writer.drain()
            await reader.read()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def test_a_stream_left_before_its_end_came_is_reused_once_the_end_is_in(
        backend: DirectBackend) -> None:
    """The real case (a chunked stream left at ``[DONE]``) made certain: the pool keeps
    the connection and reads the body's end when it hands the connection out."""
    server = LateTerminator()
    url = await server.start()
    try:
        assert answer(await ask(backend, url)) == "Hello, wörld!"
        assert backend._pool is not None
        kept = [c for idle in backend._pool._idle.values() for c in idle]
        assert len(kept) == 1 and not kept[0].finished()  # the end had not come
        server.release.set()
        await server.sent_end.wait()
        while not await kept[0].settle():  # until the body's end is in
            await asyncio.sleep(0)
        assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()
    assert server.connections == 1 and backend._pool.connections_made == 1


async def test_the_twin_a_server_that_says_close_gets_a_new_connection(
        backend: DirectBackend) -> None:
    server = RawServer(content_length(SSE, "connection: close"),
                       content_length(SSE, "connection: close"), close_after=True)
    assert await two_rounds(backend, server) == 2


@pytest.mark.parametrize("checked", [True, False], ids=["seen-closed", "found-closed"])
async def test_a_kept_connection_the_server_dropped_is_replaced(
        backend: DirectBackend, monkeypatch: pytest.MonkeyPatch, checked: bool) -> None:
    """The server closes without saying so: the next request still goes through,
    whether the pool sees the close before reuse or the request finds it (a race)."""
    if not checked:
        monkeypatch.setattr(Connection, "_quiet", lambda self: True)
    server = RawServer(content_length(SSE), content_length(SSE), close_after=True)
    assert await two_rounds(backend, server) == 2


async def test_reuse_against_the_scripted_provider(backend: DirectBackend,
                                                   fake_provider: FakeProvider) -> None:
    """The real case: a chunked stream left at ``[DONE]``, then (the tools' time
    later) the next round."""
    fake_provider.queue(Reply(text="one"), Reply(text="two"))
    assert answer(await ask(backend, fake_provider.url)) == "one"
    assert backend._pool is not None
    kept = [c for idle in backend._pool._idle.values() for c in idle]
    assert len(kept) == 1
    while not await kept[0].settle():  # until the body's end is in
        await asyncio.sleep(0)
    assert answer(await ask(backend, fake_provider.url)) == "two"
    assert backend._pool is not None and backend._pool.connections_made == 1


async def test_text_lines_split_as_sse_splits() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for chunk in (b"data: a\r", b"\ndata: b\xe2\x80", b"\xa8c\r\rdata: \xc3", b"\xa9\n",
                      b"last"):
            yield chunk

    assert [line async for line in text_lines(chunks())] == [
        "data: a", "data: b\u2028c", "", "data: é", "last"]


async def test_an_injected_httpx_client_is_used(fake_provider: FakeProvider) -> None:
    import httpx

    sent: list[str] = []

    async def record(request: httpx.Request) -> None:
        sent.append(str(request.url))

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as client:
        backend = DirectBackend("openai", client=client)
        fake_provider.queue(Reply(text="via httpx"))
        assert answer(await ask(backend, fake_provider.url)) == "via httpx"
    assert sent == [fake_provider.url + "/chat/completions"] and backend._pool is None


# ---------------------------------------------------------------- proxies


@pytest.mark.parametrize("env", [
    {}, {"HTTP_PROXY": "http://p:1"}, {"https_proxy": "p:2", "HTTPS_PROXY": "http://q:3"},
    {"ALL_PROXY": "socks5://p:4"}, {"HTTP_PROXY": "http://p:1", "http_proxy": ""},
    {"HTTP_PROXY": "http://p:1", "REQUEST_METHOD": "GET"},
    {"http_proxy": "http://p:1", "REQUEST_METHOD": "GET"}, {"Ftp_Proxy": "http://p:5"},
], ids=str)
def test_proxies_are_found_as_urllib_finds_them(monkeypatch: pytest.MonkeyPatch,
                                               env: dict[str, str]) -> None:
    from urllib.request import getproxies_environment

    from swebash_py.provider.proxies import environment_proxies, proxy_may_apply

    for name in list(os.environ):
        if name.lower().endswith("_proxy") or name == "REQUEST_METHOD":
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert environment_proxies() == getproxies_environment()
    found = getproxies_environment()
    assert proxy_may_apply("http") == bool(found.get("http") or found.get("all"))


async def test_behind_a_proxy_the_request_goes_through_it(
        backend: DirectBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = RawServer(content_length(SSE))
    proxy_url = await proxy.start()
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.setenv("http_proxy", proxy_url)
    try:
        assert answer(await ask(backend, "http://provider.invalid:8080")) == "Hello, wörld!"
    finally:
        await proxy.stop()
    assert proxy.requests[0].startswith(b"POST http://provider.invalid:8080/chat/completions ")
    assert backend._pool is None  # httpx took it


async def test_the_twin_without_a_proxy_the_lean_path_goes_direct(
        backend: DirectBackend) -> None:
    server = RawServer(content_length(SSE))
    url = await server.start()
    try:
        assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()
    assert server.requests[0].startswith(b"POST /chat/completions ")
    assert backend._pool is not None and backend._own == {}


# ---------------------------------------------------------------- TLS


def self_signed(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` (a host name or an IP address)."""
    crypto = pytest.importorskip("cryptography", reason="makes the test certificate")
    del crypto
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "swebash test")])
    try:
        alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        alt = x509.DNSName(name)
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


async def tls_server(tmp_path: Path, name: str) -> tuple[RawServer, str, Path]:
    cert, key = self_signed(tmp_path, name)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = RawServer(content_length(SSE), content_length(SSE), tls=context)
    return server, await server.start(), cert


async def test_https_trusts_the_certificate_in_ssl_cert_file(
        backend: DirectBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server, url, cert = await tls_server(tmp_path, "127.0.0.1")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    try:
        for _ in range(2):  # and the TLS connection is kept for the next round
            assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()
    assert server.connections == 1


async def test_the_twin_https_without_it_fails_verification(
        backend: DirectBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server, url, _ = await tls_server(tmp_path, "127.0.0.1")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    try:
        with pytest.raises(ProviderUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
            await ask(backend, url)
    finally:
        await server.stop()


async def test_https_checks_the_host_name(backend: DirectBackend, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    server, url, cert = await tls_server(tmp_path, "provider.example")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    try:
        with pytest.raises(ProviderUnavailable, match=r"CERTIFICATE_VERIFY_FAILED.*mismatch"):
            await ask(backend, url)  # trusted, but for another name than 127.0.0.1
    finally:
        await server.stop()


async def test_plain_http_never_loads_the_ca_bundle(
        backend: DirectBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    server = RawServer(content_length(SSE))
    url = await server.start()
    try:
        assert answer(await ask(backend, url)) == "Hello, wörld!"
    finally:
        await server.stop()


async def test_the_twin_https_loads_it(backend: DirectBackend, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    with pytest.raises(FileNotFoundError):
        await ask(backend, "https://127.0.0.1:9")


async def test_the_lean_transport_says_when_the_request_is_out(backend: DirectBackend) -> None:
    """``provider.sent`` is told once the request is written, before its answer
    (the warm-up begins then, not at the connect)."""
    from swebash_py.provider import sent

    server = RawServer(content_length(SSE.replace("\n", "\r\n")))
    url = await server.start()
    told: list[int] = []
    sent.on_next(lambda: told.append(len(told)))
    request = ChatRequest(model="openai/m", messages=[Message.user("hi")], api_base=url,
                          connect_timeout=5, stall_timeout=10)
    try:
        stream = backend.stream(request)
        first = await anext(stream)  # the answer's first event: the request went out before
        assert told == [0] and first is not None
        assert [e async for e in stream][-1] == Finish("stop")
    finally:
        await server.stop()
    assert told == [0]  # once


async def test_the_twin_an_injected_httpx_client_is_said_sent_at_the_first_wait(
        fake_provider: FakeProvider) -> None:
    """httpx gives no word when the request is out: the signal still comes (at the
    turn's first wait), so a warm-up waiting for it is never left waiting."""
    import httpx

    from swebash_py.provider import sent

    fake_provider.queue(Reply(text="fine"))
    told: list[int] = []
    sent.on_next(lambda: told.append(1))
    async with httpx.AsyncClient() as client:
        events = await ask(DirectBackend("openai", client), fake_provider.url)
    assert answer(events) == "fine" and told == [1]
