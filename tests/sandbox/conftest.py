"""Sandbox tests run real bwrap; they say why when they cannot."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from swebash_py.sandbox import bwrap
from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai, spawn_ai  # noqa: F401  (spawn_ai: a fixture)
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def _why_no_bwrap() -> str:
    found = bwrap.probe()
    return "" if found.ok else found.reason


needs_bwrap = pytest.mark.skipif(bool(_why_no_bwrap()), reason=f"no working bwrap: "
                                 f"{_why_no_bwrap()}")


def command_reply(command: str, **extra: object) -> Reply:
    return Reply(tool_calls=[ToolCall("c1", "run_command",
                                      json.dumps({"command": command, **extra}))])


def attack(fake_provider: FakeProvider, workspace: Path, command: str, *flags: str,
           env: dict[str, str] | None = None, **extra: object) -> tuple[str, str]:
    """Run ``command`` as the model's one call; (the result sent back, the whole
    request log as text)."""
    fake_provider.queue(command_reply(command, **extra), Reply(text="ok"))
    result = run_ai(*flags, "-m", "openai/x", "--api-base", fake_provider.url, "go",
                    cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    ((_id, sent, _error),) = sent_results(fake_provider.requests[1])
    log = json.dumps([r.body for r in fake_provider.requests])
    return str(sent), log


def host_pids(marker: str) -> list[int]:
    """Host processes whose command line starts with ``marker`` (``sleep 1000.5``)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if cmdline.startswith(marker.encode()) and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def wait_until(predicate: object, timeout: float = 10) -> bool:
    """Poll an observable condition (bounded); never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return bool(predicate())  # type: ignore[operator]


@pytest.fixture
def reap() -> Iterator[list[str]]:
    """Markers of processes a twin test leaves behind on purpose: killed after."""
    markers: list[str] = []
    yield markers
    for marker in markers:
        for pid in host_pids(marker):
            with contextlib.suppress(OSError):
                os.kill(pid, 9)


def reachable_by_others(*paths: Path) -> bool:
    """Whether an ordinary user can reach each path: every folder on the way is
    searchable by others (a checkout in a 0700 ``mktemp -d`` folder is not)."""
    for path in paths:
        for folder in [path, *path.parents] if path.is_dir() else list(path.parents):
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
    return True
