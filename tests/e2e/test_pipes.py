"""`ai "x" | head -2`: the reader goes away early; `ai` ends quietly (status 0,
nothing on stderr) and the session record is closed, the same in text and
JSON mode whether or not a write met the closed pipe."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import AI, ai_env
from tests.fakeprovider import FakeProvider, Reply

# Over a pipe buffer (64 KiB): `ai` cannot have written it all before `head` leaves.
LONG = "".join(f"line {i}\n" for i in range(12000))


@pytest.mark.parametrize("extra", [[], ["--json"]], ids=["text", "json"])
def test_head_ends_it_quietly(fake_provider: FakeProvider, isolated: Path,
                              extra: list[str]) -> None:
    fake_provider.queue(Reply(text=LONG, chunk_size=50))
    args = " ".join([AI, "-m", "openai/x", "--api-base", fake_provider.url, *extra, "hi"])
    result = subprocess.run(["bash", "-c", f'{args} | head -2; echo "status=${{PIPESTATUS[0]}}"'],
                            capture_output=True, text=True, env=ai_env(), timeout=60)
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and lines[-1] == "status=0", result.stdout
    with sqlite3.connect(isolated / "data" / "sessions.db") as db:
        turns = db.execute("SELECT stop_reason, completed FROM turns").fetchall()
    assert len(turns) == 1 and turns[0][0] == "cancelled" and turns[0][1] is not None


@pytest.mark.parametrize("extra", [[], ["--json"]], ids=["text", "json"])
def test_a_short_answer_to_head_ends_the_same_in_both_modes(
        fake_provider: FakeProvider, extra: list[str]) -> None:
    """JSON mode writes turn_start before the answer, so `head -1` has always left
    when the next event is written; text mode's short answer fits one write."""
    fake_provider.queue(Reply(text="short\nanswer\nhere\n"))
    args = " ".join([AI, "-m", "openai/x", "--api-base", fake_provider.url, *extra, "hi"])
    result = subprocess.run(["bash", "-c", f'{args} | head -1; echo "status=${{PIPESTATUS[0]}}"'],
                            capture_output=True, text=True, env=ai_env(), timeout=60)
    assert result.stderr == ""
    assert result.stdout.splitlines()[-1] == "status=0", result.stdout


def test_a_reader_that_takes_everything_sees_status_0(fake_provider: FakeProvider) -> None:
    """The twin: with a reader that stays, the same answer ends with 0."""
    fake_provider.queue(Reply(text=LONG, chunk_size=50))
    args = " ".join([AI, "-m", "openai/x", "--api-base", fake_provider.url, "hi"])
    result = subprocess.run(["bash", "-c", f'{args} | wc -l; echo "status=${{PIPESTATUS[0]}}"'],
                            capture_output=True, text=True, env=ai_env(), timeout=60)
    assert result.stdout.split() == ["12000", "status=0"], result.stdout + result.stderr
