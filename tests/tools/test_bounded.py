"""Bounded means bounded: every child a tool starts ends by its timeout, whatever
it does (floods its pipe, ignores SIGTERM, never ends), and the answer comes
back with what it had by then. Each wall has a twin where the child behaves."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from swebash_py.process import proc
from swebash_py.tools import search as search_mod
from swebash_py.tools.proclines import stream_lines
from swebash_py.tools.search import MATCH_CAP, search
from tests.bigfiles import gib_of_matches

IGNORES_TERM_AND_FLOODS = ["sh", "-c", "trap '' TERM; exec yes"]
IGNORES_TERM_AND_SLEEPS = ["sh", "-c", "trap '' TERM; while :; do :; done"]
needs_rg = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")


@pytest.fixture
def gib(workspace: Path) -> Iterator[Path]:
    path = gib_of_matches(workspace / "huge.py")
    yield path
    path.unlink()


@pytest.fixture(params=["python", "rg"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(search_mod.shutil, "which", lambda _name: None)
    elif shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    return str(request.param)


@pytest.mark.slow
async def test_a_search_matching_every_line_of_a_gib_returns_the_first_matches(
        gib: Path, workspace: Path, engine: str) -> None:
    began = time.monotonic()
    result = await search("return", workspace, None, workspace, timeout=10.0)
    assert time.monotonic() - began < 10.0 + 3.0
    lines = result.output.splitlines()
    assert lines[0] == "huge.py:1: return value" and lines[MATCH_CAP - 1].startswith(
        f"huge.py:{MATCH_CAP}: ")
    assert "stopped after 200 matches" in lines[-1] and not result.metadata["timed_out"]


async def test_twin_a_normal_search_returns_its_matches(workspace: Path, engine: str) -> None:
    (workspace / "a.py").write_text("x = 1\nreturn x\n")
    result = await search("return", workspace, None, workspace, timeout=10.0)
    assert result.output.splitlines() == ["a.py:2: return x"]
    assert not result.metadata["timed_out"]


@needs_rg
async def test_a_search_whose_child_never_ends_stops_at_its_timeout(workspace: Path) -> None:
    fifo = workspace / "never"
    os.mkfifo(fifo)  # rg opens it and waits for a writer that never comes
    began = time.monotonic()
    result = await search("x", fifo, None, workspace, timeout=1.0)
    assert time.monotonic() - began < 1.0 + 3.0
    assert result.metadata["timed_out"] and "timeout" in result.output


@needs_rg
async def test_search_order_does_not_depend_on_rgs_threads(workspace: Path) -> None:
    for d in range(40):
        for f in range(8):
            path = workspace / f"d{d:02}" / f"f{f}.txt"
            path.parent.mkdir(exist_ok=True)
            path.write_text("hit\n")
    expected = [f"d{d:02}/f{f}.txt:1: hit" for d in range(40) for f in range(8)][:MATCH_CAP]
    for _ in range(3):
        result = await search("hit", workspace, None, workspace, timeout=10.0)
        assert result.output.splitlines()[:MATCH_CAP] == expected


@pytest.mark.slow
async def test_a_child_that_ignores_sigterm_is_killed_at_its_timeout(workspace: Path) -> None:
    res = await proc.run_process(IGNORES_TERM_AND_FLOODS, cwd=workspace, env=os.environ,
                                 timeout=1.0, grace=0.5)
    assert res.timed_out and res.returncode == -9 and res.duration < 1.0 + 0.5 + 2.0
    assert res.output.startswith("y\ny\n") and res.total_bytes > 1_000_000  # read all along


@pytest.mark.slow
async def test_a_line_reader_kills_a_child_that_ignores_sigterm(workspace: Path) -> None:
    began = time.monotonic()
    ended = await stream_lines(IGNORES_TERM_AND_SLEEPS, cwd=workspace, env=os.environ,
                               timeout=1.0, grace=0.5, on_line=lambda _line: True)
    assert ended.timed_out and ended.returncode == -9
    assert time.monotonic() - began < 1.0 + 0.5 + 2.0


async def test_a_line_reader_stops_a_flood_once_it_has_enough(workspace: Path) -> None:
    seen: list[bytes] = []

    def take(line: bytes) -> bool:
        seen.append(line)
        return len(seen) < 5
    ended = await stream_lines(IGNORES_TERM_AND_FLOODS, cwd=workspace, env=os.environ,
                               timeout=10.0, on_line=take)
    assert ended.stopped and not ended.timed_out and seen == [b"y"] * 5


async def test_twin_a_normal_command_returns_its_output_and_exit_code(workspace: Path) -> None:
    res = await proc.run_process(["sh", "-c", "echo out; echo err >&2; exit 3"],
                                 cwd=workspace, env=os.environ, timeout=10.0)
    assert (res.returncode, res.timed_out) == (3, False)
    assert sorted(res.output.splitlines()) == ["err", "out"]
    lines: list[bytes] = []
    ended = await stream_lines(["sh", "-c", "printf 'a\\nb\\n'; exit 4"], cwd=workspace,
                               env=os.environ, timeout=10.0,
                               on_line=lambda line: lines.append(line) is None)
    assert (ended.returncode, ended.timed_out, ended.stopped, lines) == (4, False, False,
                                                                        [b"a", b"b"])
