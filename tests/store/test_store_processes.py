"""Real processes: kill -9 mid-turn, and two writers on one database."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path

from swebash_py.engine.context import INTERRUPTED
from swebash_py.store import Store

WRITER = Path(__file__).with_name("block_writer.py")


def spawn(db: Path, blocks: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WRITER), str(db), str(blocks), *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def read_until(proc: subprocess.Popen[str], prefix: str) -> str:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(prefix):
            return line.strip()
    raise AssertionError(f"writer ended before {prefix!r}: {proc.stderr and proc.stderr.read()}")


def test_kill_9_loses_at_most_the_block_in_flight(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    proc = spawn(db, 100_000)
    sid = read_until(proc, "SESSION").split()[1]
    read_until(proc, "WROTE 200")
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.stdout is not None
    out = proc.stdout.read()  # the same buffered reader as read_until (communicate skips it)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    reported = max([200] + [int(ln.split()[1]) for ln in out.splitlines()
                            if ln.startswith("WROTE")])

    with Store(db) as store:
        turns = store.turns(sid)
        stored = len(turns[0].blocks)
        assert reported <= stored <= reported + 1  # committed before the kill, maybe one more
        assert turns[0].completed is None
        msgs = store.load_messages(sid)
    # Valid history: alternating, every call answered right after.
    assert msgs[0].role == "user"
    for prev, msg in itertools.pairwise(msgs):
        assert prev.role != msg.role
        if prev.tool_uses():
            assert [r.call_id for r in msg.tool_results()] == [u.id for u in prev.tool_uses()]
    uses = sum(len(m.tool_uses()) for m in msgs)
    results = sum(len(m.tool_results()) for m in msgs)
    assert uses == results == (stored + 1) // 3
    if stored % 3 == 2:  # killed between a call and its result
        assert msgs[-1].tool_results()[-1].content == INTERRUPTED


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "sessions.db"  # both also race to create and migrate it
    procs = [spawn(db, 300, "--wait") for _ in range(2)]
    for p in procs:
        read_until(p, "READY")
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert "locked" not in err and "DONE" in out
    sids = [next(ln.split()[1] for ln in out.splitlines() if ln.startswith("SESSION"))
            for out, _ in outputs]
    with Store(db) as store:
        assert len(store.list_sessions(10)) == 2
        for sid in sids:
            (turn,) = store.turns(sid)
            assert [b.text for b in turn.blocks][:3] == ["text 0", '{"command": "echo 1"}',
                                                         "output 2"]
            assert len(turn.blocks) == 300
            assert [n for n in range(300)] == [int(b.text.split()[-1].rstrip('"}'))
                                                for b in turn.blocks]
            assert store.session_usage(sid).output_tokens == 20
