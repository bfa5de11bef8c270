"""Fixtures: one real PostgreSQL cluster per test process, a database per test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.team.pgserver import Cluster, start_cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    try:
        cluster = start_cluster()
    except RuntimeError as exc:
        pytest.skip(f"no PostgreSQL server can start here: {exc}")
    yield cluster
    cluster.stop()


@dataclass
class TeamDB:
    cluster: Cluster
    name: str

    @property
    def owner_url(self) -> str:
        return self.cluster.url("swebash_owner", self.name)

    @property
    def alice_url(self) -> str:
        return self.cluster.url("alice", self.name)

    @property
    def bob_url(self) -> str:
        return self.cluster.url("bob", self.name)

    def sql(self, query: str, user: str = "postgres") -> str:
        return self.cluster.psql(query, user=user, db=self.name)

    def count(self, table: str, where: str = "TRUE") -> int:
        return int(self.sql(f"SELECT COUNT(*) FROM {table} WHERE {where}"))


@pytest.fixture
def team_db(pg_cluster: Cluster) -> TeamDB:
    return TeamDB(pg_cluster, pg_cluster.new_database())
