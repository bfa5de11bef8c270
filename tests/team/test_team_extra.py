"""psycopg is the [team] extra: without it, the team store says which extra to
install, in one line, through the real command line; with it, the driver is used."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from swebash_py.team import uploader
from swebash_py.team.uploader import StoreUnavailable

EXTRA = "needs psycopg, the [team] extra: pip install 'swebash-py[team]' " \
        "(or ./scripts/install.sh --team)"
# `ai` as installed, with psycopg made unimportable (as in an install without the extra)
WITHOUT_PSYCOPG = ("import sys; sys.modules['psycopg'] = None; "
                   "from swebash_py.cli.main import main; main(sys.argv[1:])")


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    return f"postgresql://alice:secret@127.0.0.1:{port}/team"


def test_without_psycopg_connect_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StoreUnavailable) as caught:
        uploader.connect(_refused_url())
    assert EXTRA in str(caught.value) and "secret" not in str(caught.value)


def test_twin_with_psycopg_the_driver_is_used() -> None:
    with pytest.raises(StoreUnavailable) as caught:
        uploader.connect(_refused_url())
    message = str(caught.value)
    assert message.startswith("cannot reach the team store") and "[team]" not in message


def test_ai_sync_without_psycopg_is_one_line_naming_the_extra() -> None:
    env_url = {"SWEBASH_STORE_URL": _refused_url()}
    result = subprocess.run([sys.executable, "-c", WITHOUT_PSYCOPG, "sync"],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, **env_url})
    assert result.returncode == 1
    assert result.stderr.startswith("ai: ") and result.stderr.count("\n") == 1
    assert EXTRA in result.stderr
