"""A secret value cut in two at an output edge must not leak in pieces: the
middle a command's capture drops (run_command, previews, background reads),
a background read that ends inside a value, MCP results and fetched pages
(redacted before their cap). Each with a twin where the piece does leak."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest

from swebash_py.mcpclient import results
from swebash_py.process import capture as capture_mod
from swebash_py.process import proc
from swebash_py.process.values import REDACTED, clip_at_cut, redact
from swebash_py.tools import fetch
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext, redact_result
from swebash_py.tools.command import RunCommand
from swebash_py.tools.jobs import CommandOutput
from tests.fakeprovider import FakeProvider
from tests.sandbox.conftest import attack, needs_bwrap, wait_until

SECRET = "sk-Zq9Wv4Xk7Jm2Hp5Tn8Rb3Lc6"  # no 4 characters of it occur in the filler
HALF = 2_000  # head and tail of a capture when max_output_chars is small


def pieces(text: str, shortest: int = 4) -> list[str]:
    """Pieces of the secret (``shortest`` characters or more) found in ``text``."""
    n = len(SECRET)
    return [SECRET[i:j] for i in range(n) for j in range(i + shortest, n + 1)
            if SECRET[i:j] in text]


def straddling(head_cut_at: int, tail_cut_at: int) -> str:
    """Output with the secret across the head's end and across the tail's start."""
    start = "." * (HALF - 10) + SECRET  # its first 10 characters end the head
    end = SECRET + "." * (HALF - 12)  # its last 12 characters begin the tail
    return start + "-" * 50_000 + end


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_API_KEY", SECRET)


# -- the capture's cut ---------------------------------------------------------------

def test_clip_drops_both_pieces() -> None:
    head, tail = clip_at_cut(b"x" * 10 + SECRET[:7].encode(), SECRET[5:].encode() + b"y",
                             [SECRET.encode()])
    assert head == b"x" * 10 and tail == b"y"
    assert clip_at_cut(b"abc", b"def", [SECRET.encode()]) == (b"abc", b"def")  # nothing else


def test_clip_keeps_a_whole_value_for_redaction() -> None:
    head, _tail = clip_at_cut(b"x" + SECRET.encode(), b"y", [SECRET.encode()])
    assert head.endswith(SECRET.encode())


@pytest.mark.parametrize("clip", [True, False])
def test_capture_cut_leaves_no_piece(secret_env: None, monkeypatch: pytest.MonkeyPatch,
                                     clip: bool) -> None:
    if not clip:  # twin: without the clip, pieces survive the cut and redaction
        monkeypatch.setattr(capture_mod, "clip_at_cut", lambda head, tail: (head, tail))
    capture = proc.Capture(HALF, HALF)
    data = straddling(HALF, HALF).encode()
    for i in range(0, len(data), 4096):
        capture.add(data[i:i + 4096])
    text = redact(capture.text())
    assert "cut from the middle" in text
    assert (pieces(text) == []) is clip


async def test_run_command_result_has_no_piece(secret_env: None, workspace: Path) -> None:
    (workspace / "out.txt").write_text(straddling(HALF, HALF))
    ctx = ToolContext(workspace=workspace, grant="host", max_output_chars=1_000)
    result = await RunCommand().run(RunCommand.Args.parse(
        {"command": "cat out.txt"}), ctx)
    assert "cut from the middle" in result.output
    assert pieces(redact_result(result).output) == []


@needs_bwrap
@pytest.mark.parametrize("sandbox", ["workspace-write", "off"])
def test_through_ai_the_model_gets_no_piece(fake_provider: FakeProvider, workspace: Path,
                                            isolated: Path, sandbox: str) -> None:
    """The whole path: ``ai``'s environment holds the key, a file holds it too, the
    output is cut right inside both copies."""
    (isolated / "config.toml").write_text("[tools]\nmax_output_chars = 1000\n")
    (workspace / "out.txt").write_text(straddling(HALF, HALF))
    sent, log = attack(fake_provider, workspace, "cat out.txt", "-y", "--sandbox", sandbox,
                       env={"DEPLOY_API_KEY": SECRET})
    assert "cut from the middle" in sent
    assert pieces(sent) == [] and pieces(log) == []


# -- a background command's reads ------------------------------------------------------

@pytest.fixture
async def jobs() -> AsyncIterator[JobTable]:
    table = JobTable()
    yield table
    table.close()


@pytest.mark.parametrize("hold", [True, False])
async def test_background_read_inside_a_value_waits_for_the_rest(
        secret_env: None, workspace: Path, jobs: JobTable, monkeypatch: pytest.MonkeyPatch,
        hold: bool) -> None:
    if not hold:  # twin: a read that ends inside the value shows its first piece
        monkeypatch.setattr(proc.Capture, "hold_back", lambda self, values: b"")
    command = (f"printf 'start {SECRET[:12]}'; while [ ! -e go ]; do sleep 0.02; done; "
               f"printf '{SECRET[12:]} end'")
    ctx = ToolContext(workspace=workspace, jobs=jobs, grant="host")
    started = await RunCommand().run(RunCommand.Args.parse(
        {"command": command, "background": True}), ctx)
    job = jobs.get(started.metadata["id"])
    assert job is not None
    assert await asyncio.to_thread(wait_until, lambda: job.fresh.total >= 18)
    first = await CommandOutput().run(CommandOutput.Args.parse({"id": job.id}), ctx)
    assert "start" in first.output
    assert (pieces(first.output) == []) is hold
    (workspace / "go").touch()
    second = await CommandOutput().run(CommandOutput.Args.parse(
        {"id": job.id, "wait": 30}), ctx)
    both = redact(first.output) + redact(second.output)
    if hold:
        assert REDACTED in redact(second.output)  # whole in the second read
        assert pieces(both) == [] and "end" in second.output


# -- MCP results and fetched pages: redacted before their cap -------------------------

@pytest.mark.parametrize("redacted", [True, False])
def test_mcp_result_capped_inside_a_value(secret_env: None, monkeypatch: pytest.MonkeyPatch,
                                          redacted: bool) -> None:
    if not redacted:  # twin: capped first, the pieces stay
        monkeypatch.setattr(results, "redact", lambda text: text)
    keep = (4_000 - 90) // 2  # cap_middle's head for a 4,000 character cap
    text = "." * (keep - 10) + SECRET + "-" * 10_000
    result = results.map_result(SimpleNamespace(
        content=[SimpleNamespace(type="text", text=text)], is_error=False), 4_000)
    assert "cut from the middle" in result.output
    assert (pieces(redact(result.output)) == []) is redacted


class _Page(BaseHTTPRequestHandler):
    body = b""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = _Page.body
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.parametrize("redacted", [True, False])
async def test_fetched_page_is_redacted_before_its_cut(
        secret_env: None, workspace: Path, monkeypatch: pytest.MonkeyPatch,
        redacted: bool) -> None:
    if not redacted:  # twin: cut first, the first piece stays
        monkeypatch.setattr(fetch, "redact", lambda text: text)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        tool = fetch.WebFetch()
        ctx = ToolContext(workspace=workspace, max_output_chars=1_000)
        args = tool.Args.parse({"url": f"http://127.0.0.1:{server.server_address[1]}/"})
        tool.preview(args, ctx)  # resolves and pins the host, as the question does
        _Page.body = b"BEGIN"
        header = (await tool.run(args, ctx)).output.index("BEGIN")  # the lines before the page
        limit = 2_000  # the fetch cut for max_output_chars 1,000
        _Page.body = ("." * (limit - header - 10) + SECRET + "-" * 5_000).encode()
        tool.preview(args, ctx)
        result = await tool.run(args, ctx)
    finally:
        server.shutdown()
        server.server_close()
    assert "more characters" in result.output
    assert (pieces(redact(result.output)) == []) is redacted
