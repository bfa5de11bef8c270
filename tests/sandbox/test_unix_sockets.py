"""No unix socket outside the sandbox, in every mode (``network = true``
included), against real bwrap and sockets listening on the host: an abstract
one, and socket files in $HOME and in the workspace. Twins: ``off`` and the
sandbox without its seccomp filter connect to all three."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import socket
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from swebash_py.sandbox import overlay, seccomp
from swebash_py.sandbox import runner as sandbox_runner
from swebash_py.sandbox.policy import SandboxPolicy
from swebash_py.tools.background import JobTable
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand
from swebash_py.tools.jobs import CommandOutput
from tests.fakeprovider import FakeProvider
from tests.sandbox.conftest import attack, needs_bwrap

# The base interpreter: a venv under /tmp (a CI checkout there) is hidden by the
# sandbox's private /tmp; its real interpreter is not.
PYTHON = os.path.realpath(sys.executable)

pytestmark = needs_bwrap

# connects to each address given as a JSON list of [name, address]; prints name:OK or name:errno
CLIENT = """
import json, socket, sys
for name, address in json.loads(sys.argv[1]):
    try:
        if name == "pair":
            a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
        else:
            s = socket.socket(socket.AF_UNIX)
            s.connect(address.replace("@", "\\0", 1) if address.startswith("@") else address)
        print(name + ":OK")
    except OSError as exc:
        print(name + ":" + str(exc.errno) + " " + exc.strerror)
"""


@pytest.fixture
def servers(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Host sockets listening (connect succeeds through the backlog, no accept)."""
    # a home outside /tmp (private inside the sandbox): in the real home, else
    # next to the checkout (which CI may clone under /tmp)
    base = next(p for p in (Path.home(), Path(__file__).resolve().parents[2], Path("/root"))
                if not str(p.resolve()).startswith(("/tmp", "/var/tmp")))
    home = Path(tempfile.mkdtemp(prefix=".swebash-test-home-", dir=base))
    monkeypatch.setenv("HOME", str(home))
    tag = uuid.uuid4().hex[:12]
    addresses = [("abstract", f"@swebash-test-{tag}"), ("home", str(home / "agent.sock")),
                 ("workspace", str(workspace / "db.sock"))]
    listening = []
    for _name, address in addresses:
        server = socket.socket(socket.AF_UNIX)
        server.bind(address.replace("@", "\0", 1) if address.startswith("@") else address)
        server.listen(8)
        listening.append(server)
    try:
        yield addresses
    finally:
        for server in listening:
            server.close()
        shutil.rmtree(home, ignore_errors=True)


def client(addresses: list[tuple[str, str]]) -> list[str]:
    return [PYTHON, "-c", CLIENT, json.dumps([*addresses, ("pair", "")])]


def outcome(output: str) -> dict[str, str]:
    return dict(line.split(":", 1) for line in output.splitlines() if ":" in line)


def run(argv: list[str], policy: SandboxPolicy) -> dict[str, str]:
    res = asyncio.run(sandbox_runner.run(argv, policy, timeout=30, plain_env=dict(os.environ)))
    found = outcome(res.output)
    assert set(found) == {"abstract", "home", "workspace", "pair"}, res.output
    return found


@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
@pytest.mark.parametrize("network", [False, True])
def test_no_host_unix_socket_in_any_mode(servers: list[tuple[str, str]], workspace: Path,
                                         mode: str, network: bool) -> None:
    policy = SandboxPolicy(mode, workspace, network=network,  # type: ignore[arg-type]
                           home=Path(os.environ["HOME"]))
    found = run(client(servers), policy)
    eperm = f"{1} Operation not permitted"
    assert found == {"abstract": eperm, "home": eperm, "workspace": eperm, "pair": "OK"}


def test_twin_off_connects_to_all(servers: list[tuple[str, str]], workspace: Path) -> None:
    found = run(client(servers), SandboxPolicy("off", workspace))
    assert found == {"abstract": "OK", "home": "OK", "workspace": "OK", "pair": "OK"}


def test_twin_without_the_filter_connects(servers: list[tuple[str, str]], workspace: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """With the filter left out, a read-only bind and --share-net let all three through:
    the filter is the wall, not the mounts."""
    monkeypatch.setattr(seccomp, "supported", lambda machine=None: False)
    policy = SandboxPolicy("read-only", workspace, network=True, home=Path(os.environ["HOME"]))
    found = run(client(servers), policy)
    assert found == {"abstract": "OK", "home": "OK", "workspace": "OK", "pair": "OK"}


IO_URING = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 1, params)
print("io_uring:" + ("OK" if fd >= 0 else str(ctypes.get_errno())))
"""


@pytest.mark.skipif(seccomp.supported() is False, reason="the filter does not know this arch")
def test_io_uring_is_unavailable_inside(workspace: Path) -> None:
    """io_uring can create and connect sockets without socket(): ENOSYS inside."""
    inside = asyncio.run(sandbox_runner.run([PYTHON, "-c", IO_URING],
                                            SandboxPolicy("read-only", workspace), timeout=30))
    assert outcome(inside.output) == {"io_uring": str(38)}  # ENOSYS
    if Path("/proc/sys/kernel/io_uring_disabled").read_text().strip() == "0":
        outside = asyncio.run(sandbox_runner.run([PYTHON, "-c", IO_URING],
                                                 SandboxPolicy("off", workspace), timeout=30,
                                                 plain_env=dict(os.environ)))
        assert outcome(outside.output) == {"io_uring": "OK"}  # twin


def test_background_command_is_filtered_too(servers: list[tuple[str, str]],
                                            workspace: Path) -> None:
    async def go() -> str:
        ctx = ToolContext(workspace=workspace, jobs=JobTable(), grant="write")
        started = await RunCommand().run(RunCommand.Args.parse(
            {"command": shlex.join(client(servers)), "background": True}), ctx)
        job_id = started.metadata["id"]
        result = await CommandOutput().run(CommandOutput.Args.parse(
            {"id": job_id, "wait": 30}), ctx)
        return result.output

    found = outcome(asyncio.run(go()))
    assert found["home"].startswith("1 ") and found["abstract"].startswith("1 ")
    assert found["pair"] == "OK"


@pytest.mark.skipif(not overlay.support().ok, reason="no overlay support here")
def test_preview_run_is_filtered_too(servers: list[tuple[str, str]], workspace: Path) -> None:
    from swebash_py.preview.run import run_preview

    policy = SandboxPolicy("workspace-write", workspace, network=True,
                           home=Path(os.environ["HOME"]))
    found = asyncio.run(run_preview(client(servers), policy, timeout=30))
    try:
        result = outcome(found.result.output)
    finally:
        found.discard()
    assert result["home"].startswith("1 ") and result["workspace"].startswith("1 ")
    assert result["abstract"].startswith("1 ") and result["pair"] == "OK"


def test_the_result_names_the_limit_and_the_way_out(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    """Through ``ai`` with ``network = true``: the denied socket shows up as a sandbox
    limit, with escalate named; the twin off connects."""
    path = workspace / "d.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    (isolated / "config.toml").write_text("[sandbox]\nnetwork = true\n")
    command = (f"{PYTHON} -c \"import socket; s=socket.socket(socket.AF_UNIX); "
               f"s.connect('{path}'); print('CONN' + 'ECTED')\"")
    try:
        sent, _log = attack(fake_provider, workspace, command, "-y")
        assert "CONNECTED" not in sent
        assert "are blocked in the sandbox" in sent and "escalate: true" in sent
        assert "IP network on, no unix sockets" in sent
        fake_provider.requests.clear()
        sent, _log = attack(fake_provider, workspace, command, "-y", "--sandbox", "off")
        assert "CONNECTED" in sent
    finally:
        server.close()
