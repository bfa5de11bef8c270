"""The sandbox's promises hold for an ordinary (non-root) user too: run through
``setpriv`` as nobody, with the runner itself (no ai, no root capabilities)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.conftest import host_pids, needs_bwrap, reachable_by_others, wait_until

NOBODY = 65534
pytestmark = [
    needs_bwrap,
    pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root"),
    pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv is not installed"),
    pytest.mark.skipif(not reachable_by_others(Path(__file__).resolve(), Path(sys.executable)),
                       reason="the checkout or its venv lies in a folder other users cannot "
                              "enter (e.g. a 0700 mktemp -d)"),
]
ROOT = Path(__file__).resolve().parents[2]


def as_nobody(ws: Path, home: Path, mode: str) -> dict[str, object]:
    for path in (ws, home, home / ".ssh"):
        os.chown(path, NOBODY, NOBODY)
    result = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, str(ROOT / "tests" / "sandbox" / "as_user_probe.py"), str(ws),
         str(home), mode],
        capture_output=True, text=True, timeout=60, cwd="/",
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A directory nobody can reach (pytest's own tmp tree is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="swebash-user-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("mode", ["read-only", "workspace-write", "off"])
def test_ordinary_user(open_tmp: Path, mode: str) -> None:
    tmp_path = open_tmp
    ws, home = tmp_path / "ws", tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    ws.mkdir()
    (home / ".ssh" / "id_rsa").write_text("USER-SSH-KEY\n")
    (ws / ".env").write_text("USER-DOTENV\n")
    for secret in (home / ".ssh" / "id_rsa", ws / ".env"):
        os.chown(secret, NOBODY, NOBODY)
    marker = Path("/tmp/sbx-user-mark")
    marker.unlink(missing_ok=True)
    try:
        out = str(as_nobody(ws, home, mode)["output"])
        off = mode == "off"  # the twin: every check below can fail
        assert (ws / "written").exists() is (mode != "read-only")
        assert ("USER-SSH-KEY" in out) is off and ("USER-DOTENV" in out) is off
        assert marker.exists() is off
        # off: nobody can neither re-run our interpreter (the reaper) nor make a
        # cgroup under root's, so the setsid sleep escapes the command's group;
        # the runner's process (ai) adopts it as child subreaper and kills it at
        # exit (it used to outlive ai here: the escape twin is test_processes')
        assert wait_until(lambda: not host_pids("sleep 1002.7"))
    finally:
        marker.unlink(missing_ok=True)
        for pid in host_pids("sleep 1002.7"):
            os.kill(pid, 9)
