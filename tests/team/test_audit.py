"""The audit: one row per tool call with who decided, locally and on the team store;
the client role can add rows but never change or remove them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import psycopg
import pytest

from swebash_py.approvals.approver import Answer
from swebash_py.config.settings import load_settings
from swebash_py.front.build import build_session
from swebash_py.store.opening import open_store
from swebash_py.team.uploader import open_checked
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.team.conftest import TeamDB
from tests.team.helpers import HostDir

FIELDS = {"time", "host", "host_id", "user", "db_role", "cwd", "session", "turn", "tool",
          "command", "decision", "allowed", "exit_code", "duration_ms", "output_sha256",
          "description"}  # run_command's description (#31: kept in the audit)


def command_call(command: str, call_id: str = "c1") -> Reply:
    return Reply(text="", tool_calls=[ToolCall(call_id, "run_command",
                                               json.dumps({"command": command}))])


def audit_json(host: HostDir) -> list[dict[str, object]]:
    done = host.ai("audit", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_local_audit_without_a_server_yolo_rule_hook_denied(
        fake_provider: FakeProvider, tmp_path: Path, workspace: Path) -> None:
    host = HostDir(tmp_path, "solo", None)
    fake_provider.queue(command_call("echo yolo-ran"), Reply(text="ok"))
    assert host.ask(fake_provider, "one", "-y", cwd=workspace).returncode == 0
    host.config.write_text('[permissions]\nallow = ["run_command(echo rule-ran)"]\n'
                           'deny = ["run_command(rm:*)"]\n')
    fake_provider.queue(command_call("echo rule-ran"), Reply(text="ok"))
    assert host.ask(fake_provider, "two", cwd=workspace).returncode == 0
    fake_provider.queue(command_call("rm -rf build"), Reply(text="ok"))
    assert host.ask(fake_provider, "three", "-y", cwd=workspace).returncode == 0
    host.config.write_text("[sandbox]\npreview = false\n")
    fake_provider.queue(command_call("touch nobody-asked"), Reply(text="ok"))
    assert host.ask(fake_provider, "four", cwd=workspace).returncode == 0  # no terminal
    host.config.write_text("")  # previews on: the run's changes are discarded, unasked
    fake_provider.queue(command_call("touch nobody-asked"), Reply(text="ok"))
    assert host.ask(fake_provider, "four again", cwd=workspace).returncode == 0
    hook = tmp_path / "veto.sh"
    hook.write_text("#!/bin/sh\necho 'not on fridays' >&2\nexit 2\n")
    hook.chmod(0o755)
    host.config.write_text(f'[hooks]\npre_tool = ["{hook}"]\n')
    fake_provider.queue(command_call("echo vetoed"), Reply(text="ok"))
    assert host.ask(fake_provider, "five", "-y", cwd=workspace).returncode == 0

    rows = audit_json(host)
    assert all(set(r) == FIELDS for r in rows)
    got = [(r["command"], r["decision"], r["allowed"], r["exit_code"]) for r in rows]
    assert got == [("echo yolo-ran", "yolo", True, 0), ("echo rule-ran", "rule", True, 0),
                   ("rm -rf build", "rule", False, None),
                   ("touch nobody-asked", "denied", False, None),
                   ("touch nobody-asked", "discarded", False, None),
                   ("echo vetoed", "hook", False, None)]
    ran, refused = rows[0], rows[2]
    assert isinstance(ran["output_sha256"], str) and len(ran["output_sha256"]) == 64
    assert refused["output_sha256"] is None and refused["duration_ms"] is None
    assert ran["host_id"] == host.host_id() and ran["db_role"] is None
    assert ran["cwd"] == str(workspace) and ran["session"] and ran["turn"]
    assert not (workspace / "nobody-asked").exists()
    text = host.ai("audit", "--since", "1h").stdout
    assert "echo rule-ran" in text and " rule " in text
    assert host.ai("audit", "--user", "someone-else", "--json").stdout == ""


def scripted(*answers: str) -> object:
    queue = list(answers)

    async def asker(_pending: object, _verdict: object, _rule: object) -> Answer:
        return Answer(queue.pop(0))  # type: ignore[arg-type]
    return asker


async def turn_with(fake_provider: FakeProvider, asker: object, question: str,
                    workspace: Path) -> None:
    settings = load_settings({"model": "openai/x", "api_base": fake_provider.url})
    session = build_session(settings, asker=asker)  # type: ignore[arg-type]
    try:
        async for _event in session.agent.run_turn(question):
            pass
    finally:
        session.close()


def test_user_once_and_user_always_then_the_remembered_rule(
        fake_provider: FakeProvider, workspace: Path, tmp_path: Path) -> None:
    fake_provider.queue(command_call("touch once.txt"), Reply(text="ok"))
    asyncio.run(turn_with(fake_provider, scripted("yes"), "a", workspace))
    fake_provider.queue(command_call("touch always.txt"), Reply(text="ok"))
    asyncio.run(turn_with(fake_provider, scripted("always"), "b", workspace))
    fake_provider.queue(command_call("touch always.txt"), Reply(text="ok"))
    asyncio.run(turn_with(fake_provider, scripted(), "c", workspace))  # nobody asked
    # another program: "always" on touch remembered touch:* (the contract's rule)
    fake_provider.queue(command_call("mkdir no.d"), Reply(text="ok"))
    asyncio.run(turn_with(fake_provider, scripted("no"), "d", workspace))
    with open_store() as store:
        rows = store.audit_rows()
    assert [(r["command"], r["decision"], r["allowed"]) for r in rows] == [
        ("touch once.txt", "user-once", 1), ("touch always.txt", "user-always", 1),
        ("touch always.txt", "user-always", 1), ("mkdir no.d", "discarded", 0)]  # previewed


def test_audit_rows_on_the_server_and_the_client_cannot_change_them(
        team_db: TeamDB, fake_provider: FakeProvider, tmp_path: Path,
        workspace: Path) -> None:
    open_checked(team_db.owner_url).close()
    alice = HostDir(tmp_path, "alice", team_db.alice_url)
    fake_provider.queue(command_call("echo on-the-server"), Reply(text="ok"))
    assert alice.ask(fake_provider, "go", "-y", cwd=workspace).returncode == 0
    assert alice.ai("sync").returncode == 0
    rows = audit_json(alice)  # from the server now
    assert [(r["command"], r["decision"], r["db_role"]) for r in rows] == [
        ("echo on-the-server", "yolo", "alice")]
    assert audit_json(alice)[0]["host_id"] == alice.host_id()
    assert alice.ai("audit", "--host", alice.host_id()[:8], "--json").stdout.strip()
    assert not alice.ai("audit", "--host", "no-such-host", "--json").stdout.strip()

    with psycopg.connect(team_db.alice_url, autocommit=True) as conn:
        for statement in ("UPDATE audit SET decision = 'rule'", "DELETE FROM audit",
                          "TRUNCATE audit", "UPDATE turn_blocks SET text = 'x'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        conn.execute("SELECT COUNT(*) FROM audit")  # reading is allowed
    assert team_db.sql("SELECT decision FROM audit") == "yolo"
    # the twin: a role with UPDATE (the owner) can, so the check above can fail
    with psycopg.connect(team_db.owner_url, autocommit=True) as conn:
        assert conn.execute("UPDATE audit SET exit_code = exit_code").rowcount == 1


def test_the_description_reaches_the_server_beside_its_command(
        team_db: TeamDB, fake_provider: FakeProvider, tmp_path: Path,
        workspace: Path) -> None:
    """run_command's description is kept in the team audit, as locally; the twin:
    a call without one gives a null, not some other text."""
    open_checked(team_db.owner_url).close()
    bob = HostDir(tmp_path, "bob", team_db.bob_url)
    described = Reply(text="", tool_calls=[ToolCall("c1", "run_command", json.dumps(
        {"command": "echo said", "description": "Check the shell answers"}))])
    fake_provider.queue(described, Reply(text="ok"))
    assert bob.ask(fake_provider, "one", "-y", cwd=workspace).returncode == 0
    fake_provider.queue(command_call("echo unsaid", "c2"), Reply(text="ok"))
    assert bob.ask(fake_provider, "two", "-y", cwd=workspace).returncode == 0
    assert bob.ai("sync").returncode == 0
    assert team_db.sql("SELECT string_agg(coalesce(description, '-'), '|' ORDER BY time)"
                       " FROM audit") == "Check the shell answers|-"
    rows = audit_json(bob)  # from the server now
    assert [(r["command"], r["description"], r["db_role"]) for r in rows] == [
        ("echo said", "Check the shell answers", "bob"), ("echo unsaid", None, "bob")]


def test_audit_since_takes_a_duration_or_iso() -> None:
    from datetime import UTC, datetime

    from swebash_py.team.audit_query import parse_since

    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert parse_since("2h", now) == datetime(2026, 1, 2, 1, 4, 5, tzinfo=UTC)
    assert parse_since("2026-01-01T00:00:00Z") == datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(Exception, match="ISO-8601"):
        parse_since("yesterday-ish")
