"""scripts/install.sh in a throwaway HOME: a venv another Python left behind is
rebuilt, a re-run installs nothing, a Python too old is refused before anything
is touched. The script runs for real (uv bootstrapped hash-checked, then
swebash-py built and installed) on a copy of this checkout whose dependency lock
is empty, so the test costs seconds, not the minute of a full install; uv's and
pip's caches are the user's own (warm after the first run). It needs the
package index (uv, setuptools), so it is skipped when that cannot be reached."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.install


@pytest.fixture(scope="module", autouse=True)
def _index_reachable() -> None:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        pytest.skip("the package index cannot be reached from here")


def _checkout(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "requirements-uv.lock"):
        shutil.copy(ROOT / name, src / name)
    for name in ("scripts", "swebash_py"):
        shutil.copytree(ROOT / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (src / "requirements.lock").write_text("# no dependencies: only swebash-py is installed\n")
    return src


def _env(home: Path) -> dict[str, str]:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "PYENV_ROOT", "PIP_CERT",
                                                          "SSL_CERT_FILE", "LANG")}
    return {**keep, "HOME": str(home), "XDG_CACHE_HOME": cache, "PYTHON": sys.executable}


def _install(src: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(src / "scripts" / "install.sh")], cwd=src, env=env,
                          capture_output=True, text=True, timeout=300)


def _other_python() -> str | None:
    """An interpreter of another minor version than this one, if the machine has one."""
    mine = "{}.{}".format(*sys.version_info[:2])
    found = [shutil.which(n) for n in ("python3.10", "python3.12", "python3.9")]
    found += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))
    for path in filter(None, found):
        ran = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True)
        if ran.returncode == 0 and ran.stdout.strip() not in ("", mine):
            return path
    return None


def _wrong_python_venv(venv: Path) -> str:
    """A venv left behind by another Python; its version as it says."""
    other = _other_python()
    if other is not None:
        subprocess.run([other, "-m", "venv", "--without-pip", str(venv)], check=True)
    else:  # a venv whose pyvenv.cfg names another version than its interpreter
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        cfg = venv / "pyvenv.cfg"
        cfg.write_text("".join(line if not line.startswith("version") else "version = 3.10.0\n"
                               for line in cfg.read_text().splitlines(keepends=True)))
    (venv / "left-behind").write_text("")
    return "3.10" if other is None else subprocess.run(
        [other, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True, text=True).stdout.strip()


def test_a_venv_of_another_python_is_rebuilt_and_a_rerun_installs_nothing(
        tmp_path: Path) -> None:
    src, home = _checkout(tmp_path), tmp_path / "home"
    venv = home / ".local" / "share" / "swebash-py" / "venv"
    venv.parent.mkdir(parents=True)
    old = _wrong_python_venv(venv)
    env = _env(home)
    first = _install(src, env)
    assert first.returncode == 0, first.stderr
    mine = "{}.{}".format(*sys.version_info[:2])
    assert f"rebuilding {venv}: it was made by Python {old}, this is {mine}" in first.stderr
    assert not (venv / "left-behind").exists()
    assert "[1/4] Python" in first.stderr and "[4/4] swebash-py from" in first.stderr
    ai = home / ".local" / "bin" / "ai"
    assert subprocess.run([ai, "--version"], capture_output=True, text=True
                          ).stdout.startswith("swebash-py ")
    # twin: a venv made by this Python is kept, and nothing is installed again
    (venv / "kept").write_text("")
    built = (venv / "bin" / "ai").stat().st_mtime_ns
    again = _install(src, env)
    assert again.returncode == 0, again.stderr
    assert (venv / "kept").exists() and (venv / "bin" / "ai").stat().st_mtime_ns == built
    assert "dependencies: current" in again.stderr and "swebash-py: current" in again.stderr
    assert "rebuilding" not in again.stderr and "Installed" not in again.stderr
    # a change to the source is installed by the next run
    (src / "swebash_py" / "added_by_test.py").write_text("")
    changed = _install(src, env)
    assert "[4/4] swebash-py from" in changed.stderr and "dependencies: current" in changed.stderr


def test_a_python_too_old_is_refused_before_anything_is_touched(tmp_path: Path) -> None:
    src, home = _checkout(tmp_path), tmp_path / "home"
    old = tmp_path / "python3"
    old.write_text("#!/bin/sh\ncase \"$2\" in *print*) echo 3.9 ;; *) exit 1 ;; esac\n")
    old.chmod(0o755)
    result = _install(src, {**_env(home), "PYTHON": str(old)})
    assert result.returncode == 1
    assert result.stderr == (f"install: swebash-py needs Python >= 3.11; {old} is 3.9 "
                             "(set PYTHON=/path/to/python3.11 or newer)\n")
    assert not (home / ".local").exists()
