"""The team store against a real PostgreSQL: set-up, upload, offline, sync, kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from swebash_py.engine.messages import TextBlock, ToolResultBlock
from swebash_py.store import Store
from swebash_py.team.host import current_host
from swebash_py.team.outbox import Outbox
from swebash_py.team.server_schema import SCHEMA_VERSION
from swebash_py.team.uploader import drain, open_checked, upload_batch
from tests.e2e.conftest import AI, ai_env
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.team.conftest import TeamDB
from tests.team.helpers import HostDir, server_counts


def create_schema(team_db: TeamDB) -> None:
    open_checked(team_db.owner_url).close()


def test_owner_run_creates_the_schema_and_grants_the_client_role(
        team_db: TeamDB, tmp_path: Path) -> None:
    owner = HostDir(tmp_path, "owner", team_db.owner_url)
    done = owner.ai("sync")
    assert done.returncode == 0, done.stderr
    assert team_db.sql("SELECT MAX(version) FROM schema_migrations") == str(SCHEMA_VERSION)
    grants = team_db.sql("SELECT string_agg(DISTINCT privilege_type, ',' ORDER BY"
                         " privilege_type) FROM information_schema.role_table_grants"
                         " WHERE grantee = 'swebash_client' AND table_name = 'audit'")
    assert grants == "INSERT,SELECT"


def test_a_client_against_an_empty_database_says_so_in_one_line(
        team_db: TeamDB, tmp_path: Path) -> None:
    alice = HostDir(tmp_path, "alice", team_db.alice_url)
    done = alice.ai("sync")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no swebash schema" in lines[0] and "owner" in lines[0]
    assert team_db.sql("SELECT to_regclass('schema_migrations')") == "None"


def test_blocks_arrive_on_the_server_while_the_turn_still_runs(
        team_db: TeamDB, tmp_path: Path, fake_provider: FakeProvider, workspace: Path) -> None:
    create_schema(team_db)
    alice = HostDir(tmp_path, "alice", team_db.alice_url)
    (workspace / "a.txt").write_text("x")
    fake_provider.queue(
        Reply(text="Looking. ", tool_calls=[ToolCall("c1", "list_directory", '{"path": "."}')]),
        Reply(text="slow words " * 150, chunk_size=10, delay=0.02))
    proc = subprocess.Popen([AI, "-m", "openai/x", "--api-base", fake_provider.url, "look"],
                            cwd=workspace, env=ai_env(alice.env()), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while team_db.count("turn_blocks", "block_type = 'tool_result'") == 0:
            assert proc.poll() is None, "the turn ended before its blocks reached the server"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        # the tool's result is on the server; the turn is still streaming its answer
        assert proc.poll() is None and team_db.count("turn_outcomes") == 0
        assert team_db.count("turn_blocks", "block_type = 'tool_use'") == 1
    finally:
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert server_counts(team_db) == {**alice.local_counts()}
    assert alice.waiting() == 0


def test_server_down_turns_work_records_wait_then_sync_uploads_once(
        team_db: TeamDB, tmp_path: Path, fake_provider: FakeProvider, workspace: Path) -> None:
    create_schema(team_db)
    down = f"postgresql://alice@/{team_db.name}?host={tmp_path / 'nowhere'}&port=1"
    alice = HostDir(tmp_path, "alice", down)
    fake_provider.queue(Reply(text="first answer"), Reply(text="second answer"))
    first = alice.ask(fake_provider, "one", cwd=workspace)
    assert first.returncode == 0 and "first answer" in first.stdout
    assert "cannot reach the team store" in first.stderr
    assert alice.ask(fake_provider, "two", "-c", cwd=workspace).returncode == 0
    status = alice.ai("sync", "--status")
    waiting = alice.waiting()
    assert f"{waiting} records waiting" in status.stdout and "last upload: never" in status.stdout
    assert waiting == sum(alice.local_counts().values()) and waiting > 0
    assert alice.ai("sync").returncode == 1  # still down: exit 1

    alice.url = team_db.alice_url
    behind = alice.ai("sync", "--verify")  # the twin of the verify below: it can fail
    assert behind.returncode == 1 and "not on the server yet" in behind.stdout
    synced = alice.ai("sync")
    assert synced.returncode == 0 and f"uploaded {waiting} records" in synced.stdout
    assert server_counts(team_db) == alice.local_counts()
    again = alice.ai("sync")
    assert "uploaded 0 records" in again.stdout
    assert server_counts(team_db) == alice.local_counts()  # no duplicates
    status = alice.ai("sync", "--status")
    assert "0 records waiting" in status.stdout
    assert "last upload: 20" in status.stdout and status.stdout.strip().endswith("Z")
    verify = alice.ai("sync", "--verify")
    assert verify.returncode == 0 and "every local record is on the server" in verify.stdout


def fill(store: Store, n_turns: int, blocks_per_turn: int) -> None:
    sid = store.create_session("m", "/w")
    for i in range(n_turns):
        turn = store.begin_turn(sid, f"question {i}")
        for j in range(blocks_per_turn):
            store.add_block(turn, TextBlock(f"answer {i}.{j}"))
        store.finish_turn(turn, "stop", 1, 1)


def test_a_crash_between_server_commit_and_local_commit_duplicates_nothing(
        team_db: TeamDB, tmp_path: Path) -> None:
    create_schema(team_db)
    data = tmp_path / "data"
    with Store(data / "sessions.db") as store:
        fill(store, 20, 3)
    outbox = Outbox(data / "sessions.db", current_host(data), upload_output=False)
    conn = open_checked(team_db.alice_url)

    def die(_seq: int) -> None:
        raise KeyboardInterrupt("killed after the server committed")

    real_done = outbox.done
    outbox.done = die  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        upload_batch(conn, outbox, limit=50)
    assert team_db.count("turns") > 0 and outbox.waiting() == 1 + 20 * 5
    outbox.done = real_done  # type: ignore[method-assign]
    drain(conn, outbox)
    assert server_counts(team_db) == {"sessions": 1, "turns": 20, "turn_outcomes": 20,
                                      "turn_rewinds": 0, "turn_blocks": 60, "audit": 0}
    assert outbox.waiting() == 0
    conn.close()
    outbox.close()


def test_kill_9_during_an_upload_then_sync_gives_exact_counts(
        team_db: TeamDB, tmp_path: Path) -> None:
    create_schema(team_db)
    alice = HostDir(tmp_path, "alice", team_db.alice_url)
    with Store(alice.db) as store:
        fill(store, 2000, 4)  # 1 + 2000 * 6 records
    total = alice.waiting()
    proc = subprocess.Popen([AI, "sync"], env=ai_env(alice.env()), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while team_db.count("turns") == 0 and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    caught_midway = alice.waiting() > 0
    done = alice.ai("sync")
    assert done.returncode == 0, done.stderr
    assert server_counts(team_db) == alice.local_counts() == {
        "sessions": 1, "turns": 2000, "turn_outcomes": 2000, "turn_rewinds": 0,
        "turn_blocks": 8000, "audit": 0}
    assert alice.waiting() == 0 and total == 12001
    if not caught_midway:
        pytest.skip("the upload finished before the kill landed (nothing was interrupted)")


def test_tool_output_stays_local_unless_upload_output(
        team_db: TeamDB, tmp_path: Path) -> None:
    create_schema(team_db)
    for upload_output in (False, True):
        data = tmp_path / f"data{upload_output}"
        with Store(data / "sessions.db") as store:
            sid = store.create_session("m", "/w")
            turn = store.begin_turn(sid, "q")
            store.add_block(turn, ToolResultBlock("c1", "run_command", "secret build log"))
        outbox = Outbox(data / "sessions.db", current_host(data), upload_output)
        conn = open_checked(team_db.alice_url)
        drain(conn, outbox)
        conn.close()
        outbox.close()
    rows = team_db.sql("SELECT text, content->>'output_length' FROM turn_blocks"
                       " ORDER BY uploaded, id")
    assert sorted(rows.splitlines()) == ["None|16", "secret build log|None"]
    from swebash_py.team.reads import fetch_turns

    conn = open_checked(team_db.bob_url)  # another host reads them
    seen = sorted(b["text"] for sid in team_db.sql("SELECT id FROM sessions").splitlines()
                  for t in fetch_turns(conn, sid) for b in t.blocks)
    conn.close()
    assert seen == ["[output not uploaded]", "secret build log"]
