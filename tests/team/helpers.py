"""Driving `ai` as two hosts (two data directories) against the team store."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider

TABLES = ("sessions", "turns", "turn_outcomes", "turn_rewinds", "turn_blocks", "audit")


class HostDir:
    """One host: its own data directory and config file."""

    def __init__(self, root: Path, name: str, url: str | None) -> None:
        self.home = root / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.config = self.home / "config.toml"
        self.config.write_text("")
        self.url = url

    def env(self, **extra: str) -> dict[str, str]:
        env = {"SWEBASH_HOME": str(self.home / "data"), "SWEBASH_CONFIG": str(self.config)}
        if self.url:
            env["SWEBASH_STORE_URL"] = self.url
        env.update(extra)
        return env

    def ai(self, *args: str, cwd: Path | None = None,
           **extra: str) -> subprocess.CompletedProcess[str]:
        return run_ai(*args, cwd=cwd, env=self.env(**extra))

    def ask(self, provider: FakeProvider, question: str, *flags: str, cwd: Path | None = None,
            **extra: str) -> subprocess.CompletedProcess[str]:
        return self.ai("-m", "openai/x", "--api-base", provider.url, *flags, question,
                       cwd=cwd, **extra)

    @property
    def db(self) -> Path:
        return self.home / "data" / "sessions.db"

    def local(self, sql: str) -> list[tuple[object, ...]]:
        with sqlite3.connect(self.db) as conn:
            return conn.execute(sql).fetchall()

    def host_id(self) -> str:
        return (self.home / "data" / "host_id").read_text().strip()

    def waiting(self) -> int:
        return int(self.local("SELECT COUNT(*) FROM outbox")[0][0])  # type: ignore[arg-type]

    def local_counts(self) -> dict[str, int]:
        q = {"sessions": "SELECT COUNT(*) FROM sessions WHERE host_id IS NULL",
             "turns": "SELECT COUNT(*) FROM turns WHERE host_id IS NULL",
             "turn_outcomes": "SELECT COUNT(*) FROM turns WHERE host_id IS NULL"
                              " AND completed IS NOT NULL",
             "turn_rewinds": "SELECT COUNT(*) FROM turns WHERE host_id IS NULL"
                             " AND rewound IS NOT NULL",
             "turn_blocks": "SELECT COUNT(*) FROM turn_blocks WHERE host_id IS NULL",
             "audit": "SELECT COUNT(*) FROM audit"}
        return {t: int(self.local(sql)[0][0]) for t, sql in q.items()}  # type: ignore[arg-type]


def server_counts(team_db: object, host_id: str | None = None) -> dict[str, int]:
    where = f"host_id = '{host_id}'" if host_id else "TRUE"
    return {t: team_db.count(t, where) for t in TABLES}  # type: ignore[attr-defined]
