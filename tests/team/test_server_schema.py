"""The server schema's own migrations: ordered, once, under an advisory lock."""

from __future__ import annotations

import threading

import pytest

from swebash_py.team import server_schema
from swebash_py.team.server_schema import SchemaProblem, check, ensure
from swebash_py.team.uploader import connect
from tests.team.conftest import TeamDB


def test_two_owners_at_once_apply_each_migration_once(team_db: TeamDB) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def run() -> None:
        try:
            conn = connect(team_db.owner_url)
            barrier.wait()
            ensure(conn)
            check(conn)
            conn.close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert team_db.sql("SELECT string_agg(version::text, ',' ORDER BY version)"
                       " FROM schema_migrations") == ",".join(
        str(n) for n in range(1, server_schema.SCHEMA_VERSION + 1))


def test_an_older_schema_is_upgraded_by_the_owner_and_refused_to_a_client(
        team_db: TeamDB, monkeypatch: pytest.MonkeyPatch) -> None:
    owner = connect(team_db.owner_url)
    ensure(owner)
    ours = server_schema.SCHEMA_VERSION
    later = "CREATE INDEX audit_tool ON audit(tool)"
    monkeypatch.setattr(server_schema, "MIGRATIONS", [*server_schema.MIGRATIONS, later])
    monkeypatch.setattr(server_schema, "SCHEMA_VERSION", ours + 1)
    client = connect(team_db.alice_url)
    assert ensure(client) is False
    with pytest.raises(SchemaProblem, match="older"):
        check(client)
    assert ensure(owner) is True
    check(owner)
    check(client)
    assert team_db.sql("SELECT string_agg(version::text, ',' ORDER BY version)"
                       " FROM schema_migrations") == ",".join(
        str(n) for n in range(1, ours + 2))
    assert team_db.sql("SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'audit_tool'") == "1"
    owner.close()
    client.close()
