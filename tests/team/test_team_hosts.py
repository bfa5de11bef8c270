"""Two hosts on one team store; privacy; a newer server schema; start-up cost."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from swebash_py.team.server_schema import SCHEMA_VERSION
from swebash_py.team.uploader import open_checked
from tests.e2e.conftest import ai_env
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.team.conftest import TeamDB
from tests.team.helpers import TABLES, HostDir, server_counts


def test_two_hosts_list_each_other_and_b_continues_a_session(
        team_db: TeamDB, fake_provider: FakeProvider, tmp_path: Path,
        workspace: Path) -> None:
    open_checked(team_db.owner_url).close()
    host_a = HostDir(tmp_path, "a", team_db.alice_url)
    host_b = HostDir(tmp_path, "b", team_db.bob_url)
    fake_provider.queue(Reply(text="A answers"), Reply(text="B answers"),
                        Reply(text="B continues"))
    assert host_a.ask(fake_provider, "question on host A", cwd=workspace).returncode == 0
    assert host_b.ask(fake_provider, "question on host B", cwd=workspace).returncode == 0
    listed = host_b.ai("sessions", "list", "--all-hosts")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 2 and "question on host A" in listed.stdout
    a_line = next(line for line in lines if "host A" in line)
    short = a_line.split()[0]
    a_session = host_a.local("SELECT id FROM sessions")[0][0]
    assert len(short) < 36
    assert str(a_session).startswith(short)
    before_a = server_counts(team_db, host_a.host_id())

    shown = host_b.ai("sessions", "show", short)
    assert shown.returncode == 0 and "A answers" in shown.stdout
    cont = host_b.ask(fake_provider, "B picks it up", "--session", short, cwd=workspace)
    assert cont.returncode == 0 and "B continues" in cont.stdout, cont.stderr
    sent = str(fake_provider.requests[2].body)
    assert "question on host A" in sent and "A answers" in sent  # A's history went along
    turns = team_db.sql(f"SELECT user_text || '@' || (host_id = '{host_b.host_id()}')"
                        f" FROM turns WHERE session_id = '{a_session}' ORDER BY created")
    assert turns.splitlines() == ["question on host A@false", "B picks it up@true"]
    assert server_counts(team_db, host_a.host_id()) == before_a  # A's records unchanged
    assert team_db.count("sessions") == 2  # continued, not copied
    again = host_a.ai("sessions", "list", "--all-hosts").stdout
    assert " 2 turns " in next(ln for ln in again.splitlines() if "host A" in ln)


def test_no_secret_canary_reaches_the_server(
        team_db: TeamDB, fake_provider: FakeProvider, tmp_path: Path,
        workspace: Path) -> None:
    open_checked(team_db.owner_url).close()
    canary = "canary-4f9a8b7c6d5e"
    host = HostDir(tmp_path, "a", team_db.alice_url)
    host.config.write_text("[store]\nupload_output = true\n")
    (workspace / "notes.txt").write_text(f"the deploy token is {canary}\n")
    fake_provider.queue(
        Reply(text=f"Reading it ({canary}).",
              tool_calls=[ToolCall("c1", "read_file", '{"path": "notes.txt"}'),
                          ToolCall("c2", "run_command",
                                   '{"command": "cat notes.txt; echo DONE"}')]),
        Reply(text=f"The file mentions {canary}."))
    done = host.ask(fake_provider, f"is {canary} in there?", "-y", cwd=workspace,
                    DEPLOY_TOKEN=canary)
    assert done.returncode == 0, done.stderr
    assert host.ai("sync").returncode == 0
    dump = "\n".join(team_db.sql(f"SELECT row_to_json(t)::text FROM {table} t")
                     for table in TABLES)
    assert "DONE" in dump and "[REDACTED]" in dump  # output went up, scrubbed
    assert canary not in dump
    # the twin: without the variable the value is just text, and it does go up
    fake_provider.queue(Reply(text=f"plain {canary}"))
    assert host.ask(fake_provider, "again", cwd=workspace).returncode == 0
    assert host.ai("sync").returncode == 0
    assert canary in team_db.sql("SELECT string_agg(text, ' ') FROM turn_blocks")


def test_a_newer_server_schema_is_refused_and_records_wait(
        team_db: TeamDB, fake_provider: FakeProvider, tmp_path: Path,
        workspace: Path) -> None:
    open_checked(team_db.owner_url).close()
    team_db.sql("INSERT INTO schema_migrations (version) VALUES (99)")
    host = HostDir(tmp_path, "a", team_db.alice_url)
    fake_provider.queue(Reply(text="still answers"))
    done = host.ask(fake_provider, "q", cwd=workspace)
    assert done.returncode == 0 and "still answers" in done.stdout
    lines = [ln for ln in done.stderr.splitlines() if "schema" in ln]
    assert len(lines) == 1 and "99" in lines[0] and f"version {SCHEMA_VERSION}" in lines[0]
    synced = host.ai("sync")
    assert synced.returncode == 1 and "99" in synced.stderr
    assert len(synced.stderr.strip().splitlines()) == 1
    assert server_counts(team_db) == dict.fromkeys(TABLES, 0)  # nothing written
    assert host.waiting() > 0
    owner = HostDir(tmp_path, "owner", team_db.owner_url)
    assert owner.ai("sync").returncode == 1  # the owner does not downgrade it either
    assert team_db.sql("SELECT MAX(version) FROM schema_migrations") == "99"


def test_the_password_is_never_printed(tmp_path: Path) -> None:
    url = f"postgresql://alice:hunter2secret@/nodb?host={tmp_path / 'none'}&port=1"
    host = HostDir(tmp_path, "a", url)
    shown = host.ai("config", "show")
    assert shown.returncode == 0 and "hunter2secret" not in shown.stdout
    assert "alice:***@" in shown.stdout
    failed = host.ai("sync")
    assert failed.returncode == 1 and "cannot reach the team store" in failed.stderr
    assert "hunter2secret" not in failed.stderr + failed.stdout


def test_a_one_shot_without_a_store_url_never_imports_psycopg(
        fake_provider: FakeProvider, workspace: Path) -> None:
    probe = ("import sys, atexit\n"
             "atexit.register(lambda: sys.stderr.write("
             "'\\nPSYCOPG=%s TEAM=%s\\n' % ('psycopg' in sys.modules,"
             " 'swebash_py.team.uploader' in sys.modules)))\n"
             "from swebash_py.cli.main import main\n"
             "main(sys.argv[1:])\n")
    fake_provider.queue(Reply(text="hello"), Reply(text="hello"))
    base = ["-m", "openai/x", "--api-base", fake_provider.url, "hi"]
    without = subprocess.run([sys.executable, "-c", probe, *base], cwd=workspace,
                             env=ai_env(), capture_output=True, text=True, timeout=60)
    assert "hello" in without.stdout and "PSYCOPG=False TEAM=False" in without.stderr
    # the twin: with a store URL the uploader (and psycopg) do load
    url = f"postgresql://x@/db?host={workspace / 'none'}&port=1"
    with_url = subprocess.run([sys.executable, "-c", probe, *base], cwd=workspace,
                              env=ai_env({"SWEBASH_STORE_URL": url}), capture_output=True,
                              text=True, timeout=60)
    assert "TEAM=True" in with_url.stderr


def test_a_store_url_that_is_not_postgres_is_a_config_error_without_the_password(
        tmp_path: Path) -> None:
    host = HostDir(tmp_path, "a", "mysql://bob:s3cr3t-pw@db/x")
    done = host.ai("sync", "--status")
    assert done.returncode == 1 and "SWEBASH_STORE_URL" in done.stderr
    assert "store.url" in done.stderr and "s3cr3t-pw" not in done.stderr


def test_the_owner_is_told_when_the_client_role_is_missing(
        team_db: TeamDB, tmp_path: Path) -> None:
    team_db.sql("DROP OWNED BY swebash_client")
    team_db.cluster.psql("ALTER ROLE swebash_client RENAME TO swebash_client_gone")
    try:
        owner = HostDir(tmp_path, "owner", team_db.owner_url)
        done = owner.ai("sync")
        assert done.returncode == 1 and "swebash_client does not exist" in done.stderr
        assert team_db.sql("SELECT to_regclass('schema_migrations')") == "None"  # rolled back
    finally:
        team_db.cluster.psql("ALTER ROLE swebash_client_gone RENAME TO swebash_client")


def test_json_events_carry_the_full_session_id(
        fake_provider: FakeProvider, tmp_path: Path, workspace: Path) -> None:
    import json
    import uuid

    host = HostDir(tmp_path, "a", None)
    fake_provider.queue(Reply(text="hi"), Reply(text="again"))
    first = host.ask(fake_provider, "new one", "--json", cwd=workspace)
    start = next(json.loads(x) for x in first.stdout.splitlines() if '"turn_start"' in x)
    assert uuid.UUID(start["session_id"]).version == 7  # a new session's id, in full
    listed = host.ai("sessions", "list").stdout.split()[0]
    assert len(listed) < 36 and start["session_id"].startswith(listed)
    again = host.ask(fake_provider, "more", "--json", "--session", listed, cwd=workspace)
    start2 = next(json.loads(x) for x in again.stdout.splitlines() if '"turn_start"' in x)
    assert start2["session_id"] == start["session_id"]


def test_a_rewind_goes_up_as_a_new_record_and_another_host_honours_it(
        team_db: TeamDB, tmp_path: Path) -> None:
    from swebash_py.engine.messages import TextBlock
    from swebash_py.store import Store
    from swebash_py.team.host import current_host
    from swebash_py.team.outbox import Outbox
    from swebash_py.team.reads import fetch_turns, list_sessions, resolve
    from swebash_py.team.uploader import drain

    open_checked(team_db.owner_url).close()
    data = tmp_path / "a"
    with Store(data / "sessions.db") as store:
        sid = store.create_session("m", "/w")
        for text in ("keep this", "take this back"):
            turn = store.begin_turn(sid, text)
            store.add_block(turn, TextBlock(f"answer to {text}"))
            store.finish_turn(turn, "stop")
        outbox = Outbox(data / "sessions.db", current_host(data), False)
        conn = open_checked(team_db.alice_url)
        drain(conn, outbox)
        before = team_db.sql("SELECT string_agg(row_to_json(t)::text, '') FROM turns t")
        assert [s.turns for s in list_sessions(conn)] == [2]  # the twin: both counted
        store.mark_rewound(sid, 2)
        drain(conn, outbox)
    assert team_db.count("turn_rewinds") == 1
    # `ai sessions list --all-hosts` counts the live turns only, as the local list does
    assert [s.turns for s in list_sessions(conn)] == [1]
    assert resolve(conn, sid[:13]).turns == 1  # type: ignore[union-attr]
    assert team_db.sql("SELECT string_agg(row_to_json(t)::text, '') FROM turns t") == before
    with Store(tmp_path / "b" / "sessions.db") as other:
        found = resolve(conn, sid[:13])
        assert found is not None
        other.merge_remote(found, fetch_turns(conn, found.id))
        texts = [m.text for m in other.load_messages(sid)]
    assert texts == ["keep this", "answer to keep this"]  # the rewound turn stays out
    conn.close()
    outbox.close()


async def test_repl_resume_fetches_another_hosts_session(
        team_db: TeamDB, fake_provider: FakeProvider, tmp_path: Path, workspace: Path,
        monkeypatch: object, capsys: object) -> None:
    from tests.repl.test_repl_logic import drive

    open_checked(team_db.owner_url).close()
    host_a = HostDir(tmp_path, "a", team_db.alice_url)
    fake_provider.queue(Reply(text="A answers"))
    assert host_a.ask(fake_provider, "from host A", cwd=workspace).returncode == 0
    a_session = str(host_a.local("SELECT id FROM sessions")[0][0])
    monkeypatch.setenv("SWEBASH_STORE_URL", team_db.bob_url)  # type: ignore[attr-defined]
    out = await drive(fake_provider, [f"/resume {a_session[:13]}"], capsys)  # type: ignore[arg-type]
    # the short id is a prefix of the full one; the recap shows both messages
    assert re.search(r"resumed session ([0-9a-f-]+)", out)
    shown = re.search(r"resumed session ([0-9a-f-]+)", out).group(1)  # type: ignore[union-attr]
    assert a_session.startswith(shown)
    assert "you from host A" in out and "ai  A answers" in out
