"""Who is recording: a host is a data directory (its own id) on a machine."""

from __future__ import annotations

import getpass
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from swebash_py.store.ids import uuid7

HOST_ID_FILE = "host_id"


@dataclass(frozen=True)
class Host:
    host_id: str
    hostname: str
    user: str


def current_host(data_dir: Path) -> Host:
    """This data directory's host id (made once, kept there), hostname, OS user."""
    return Host(_host_id(data_dir), socket.gethostname(), _os_user())


def _host_id(data_dir: Path) -> str:
    path = data_dir / HOST_ID_FILE
    try:
        value = path.read_text(encoding="utf-8").strip()
        if value:
            return value
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    value = uuid7()
    tmp = path.with_name(f".{HOST_ID_FILE}.{os.getpid()}")
    tmp.write_text(value + "\n", encoding="utf-8")
    try:
        os.link(tmp, path)  # first writer wins; a racing one reads the winner's
    except FileExistsError:
        value = path.read_text(encoding="utf-8").strip()
    finally:
        tmp.unlink(missing_ok=True)
    return value


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid()) if hasattr(os, "getuid") else "unknown"
