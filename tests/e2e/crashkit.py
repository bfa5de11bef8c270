"""Helpers for crash tests: start a real `ai`, wait on what it does, read its store."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import AI, ai_env

WAIT_S = 30.0


def start_ai(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`ai ARGS` in its own process group, stdin closed, output piped."""
    return subprocess.Popen([AI, *args], cwd=cwd, env=ai_env(env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def wait_until(what: str, ready: Callable[[], bool], timeout: float = WAIT_S) -> None:
    """Poll ``ready`` (a file, a row: something observable) until it holds."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Whatever the process left behind (an orphaned tool after kill -9)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def db_path() -> Path:
    return Path(os.environ["SWEBASH_HOME"]) / "sessions.db"


def rows(sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read the store from outside (read-only; empty while it does not exist yet)."""
    path = db_path()
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []
    finally:
        conn.close()


def stored_blocks() -> list[dict[str, Any]]:
    """Every stored block of every turn, in commit order: type, text and json fields."""
    out = []
    for kind, text, meta in rows("SELECT block_type, text, json FROM turn_blocks ORDER BY id"):
        out.append({"type": kind, "text": text, **json.loads(meta or "{}")})
    return out


def result_for(call_id: str) -> dict[str, Any] | None:
    found = [b for b in stored_blocks() if b["type"] == "tool_result"
             and b.get("call_id") == call_id]
    assert len(found) <= 1, found
    return found[0] if found else None


def last_stop_reason() -> str | None:
    found = rows("SELECT stop_reason FROM turns ORDER BY id DESC LIMIT 1")
    return found[0][0] if found else None


def block_stops(stdout: bytes) -> list[dict[str, Any]]:
    """The ``block_stop`` events an `ai --json` printed before it died."""
    out = []
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the line the kill cut short
        if isinstance(event, dict) and event.get("type") == "block_stop":
            out.append(event)
    return out


def lost_blocks(shown: list[dict[str, Any]], stored: list[dict[str, Any]]) -> list[str]:
    """Blocks the process reported complete that the store does not hold."""
    have = {(b["type"], b.get("call_id") or b.get("id"), b["text"]) for b in stored}
    lost = []
    for event in shown:
        kind, call = event["kind"], event.get("call_id")
        if (kind, call, event["content"]) not in have:
            lost.append(f"{kind} {call or ''} {event['content'][:40]!r}")
    return lost
