"""Previews work for an ordinary (non-root) user too: our own user + mount
namespace, bwrap inside it told the real ids. Run through ``setpriv`` as nobody."""

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

from tests.preview.conftest import needs_overlay
from tests.sandbox.conftest import reachable_by_others

NOBODY = 65534
ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    needs_overlay,
    pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root"),
    pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv is not installed"),
    pytest.mark.skipif(not reachable_by_others(Path(__file__).resolve(), Path(sys.executable)),
                       reason="the checkout or its venv lies in a folder other users cannot "
                              "enter (e.g. a 0700 mktemp -d)"),
]


@pytest.fixture
def open_ws() -> Iterator[Path]:
    top = Path(tempfile.mkdtemp(prefix="swebash-preview-user-"))
    top.chmod(0o755)
    ws = top / "ws"
    (ws / "tree").mkdir(parents=True)
    (ws / "tree" / "x").write_text("x\n")
    (ws / "kept.txt").write_text("kept\n")
    (ws / ".env").write_text("USER-DOTENV\n")
    for dirpath, dirnames, filenames in os.walk(top):
        for name in [*dirnames, *filenames, "."]:
            os.chown(os.path.join(dirpath, name), NOBODY, NOBODY)
    yield ws
    shutil.rmtree(top, ignore_errors=True)


def test_a_preview_as_an_ordinary_user(open_ws: Path) -> None:
    result = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, str(ROOT / "tests" / "preview" / "as_user_preview.py"), str(open_ws)],
        capture_output=True, text=True, timeout=60, cwd="/",
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(open_ws)})
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    if found["support"]:
        pytest.skip(f"no previews for an ordinary user here: {found['support']}")
    assert found["output"].splitlines()[0] == str(NOBODY)  # the command sees its real uid
    assert "USER-DOTENV" not in found["output"]
    assert found["untouched"]
    assert found["changes"] == [["kept.txt", "modify"], ["new.txt", "create"],
                                ["tree", "delete"]]
    assert found["conflicts"] == 0 and found["owner"] == NOBODY
    assert (open_ws / "kept.txt").read_text() == "kept\nmore\n"
    assert not (open_ws / "tree").exists()
