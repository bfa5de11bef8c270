"""A throwaway PostgreSQL cluster for the team-store tests (a real server).

``initdb`` + ``pg_ctl`` into a temporary directory, listening only on a Unix
socket there (as the ``postgres`` user when we are root). Each test gets a
database of its own, owned by ``swebash_owner``; ``alice`` and ``bob`` log in
as members of ``swebash_client`` (trust authentication on the socket).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def _bin_dirs() -> list[str]:
    """Where PostgreSQL's programs live: PATH's, then Debian's (newest first)."""
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                    key=lambda d: int(d.split("/")[-2]) if d.split("/")[-2].isdigit() else 0,
                    reverse=True)
    return ["/usr/local/bin", *debian]


_counter = itertools.count(1)


def find_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for directory in _bin_dirs():
        candidate = Path(directory) / name
        if candidate.exists():
            return str(candidate)
    return None


@dataclass
class Cluster:
    root: Path
    socket_dir: Path
    port: int
    runas: list[str]

    def url(self, user: str, db: str = "postgres") -> str:
        return f"postgresql://{user}@/{db}?host={self.socket_dir}&port={self.port}"

    def psql(self, sql: str, user: str = "postgres", db: str = "postgres") -> str:
        import psycopg

        with psycopg.connect(self.url(user, db), autocommit=True) as conn:
            cur = conn.execute(sql)
            if cur.description is None:
                return ""
            return "\n".join("|".join(str(v) for v in row) for row in cur.fetchall())

    def new_database(self) -> str:
        name = f"team_{os.getpid()}_{next(_counter)}"
        self.psql(f"CREATE DATABASE {name} OWNER swebash_owner")
        self.psql("REVOKE CREATE ON SCHEMA public FROM PUBLIC", db=name)
        self.psql("ALTER SCHEMA public OWNER TO swebash_owner", db=name)
        return name

    def stop(self) -> None:
        pg_ctl = find_bin("pg_ctl")
        if pg_ctl:
            subprocess.run([*self.runas, pg_ctl, "-D", str(self.root / "data"), "-m",
                            "immediate", "stop"], capture_output=True, timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster() -> Cluster:
    """Start a cluster; raises RuntimeError (the skip reason) when none can start."""
    initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise RuntimeError("PostgreSQL (initdb, pg_ctl) is not installed")
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"psycopg is not importable: {exc}") from exc
    runas: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="swebash-pg-"))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError as exc:
            raise RuntimeError("running as root and there is no postgres user") from exc
        os.chown(root, user.pw_uid, user.pw_gid)
        runas = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                 "--init-groups", "--"]
    data, sock = root / "data", root
    port = 20000 + os.getpid() % 20000
    _run([*runas, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
          "--no-sync"], "initdb")
    options = f"-k {sock} -p {port} -c listen_addresses='' -c fsync=off"
    _run([*runas, pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w",
          "start"], "pg_ctl start")
    cluster = Cluster(root, sock, port, runas)
    cluster.psql("CREATE ROLE swebash_owner LOGIN; CREATE ROLE swebash_client NOLOGIN;"
                 " CREATE ROLE alice LOGIN IN ROLE swebash_client;"
                 " CREATE ROLE bob LOGIN IN ROLE swebash_client")
    return cluster


def _run(argv: list[str], what: str) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{what} failed: {exc}") from exc
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise RuntimeError(f"{what} failed: {' '.join(tail)}")
