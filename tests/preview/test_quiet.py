"""``preview.policy.quiet_reason``: which change sets apply without a question.

Real ``.gitignore`` files in a temp workspace; change sets built as the overlay
reader builds them (a new folder is opaque: ``replace=True``). Every wall has
its twin: the same change set minus the one thing that makes it ask."""

from __future__ import annotations

import importlib.machinery
import marshal
import py_compile
import sys
from pathlib import Path
from typing import Any

import pytest

from swebash_py.preview.changes import Base, Change, ChangeSet
from swebash_py.preview.policy import quiet_reason


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".gitignore").write_text("__pycache__/\nbuild/\n.env\n")
    return root.resolve()


def new_dir(ws: Path, rel: str) -> Change:
    return Change(ws, rel, "create", "dir", Base(None), mode=0o755, replace=True)


def new_file(ws: Path, rel: str, mode: int = 0o644, **extra: object) -> Change:
    return Change(ws, rel, "create", "file", Base(None), mode=mode, size=3, **extra)  # type: ignore[arg-type]


PYC = f"src/__pycache__/a.{sys.implementation.cache_tag}.pyc"


def compiled(ws: Path, source: str = "X = 1\n", **how: Any) -> Path:
    """``src/a.py`` in the workspace and its ``.pyc`` as the importer writes it,
    in a stand-in for the overlay's upper layer (``Change.source``)."""
    (ws / "src" / "a.py").write_text(source)
    upper = ws.parent / "upper" / PYC
    upper.parent.mkdir(parents=True, exist_ok=True)
    py_compile.compile(str(ws / "src" / "a.py"), cfile=str(upper), doraise=True, **how)
    return upper


def pycache(ws: Path, upper: Path | None = None) -> list[Change]:
    """New ``__pycache__/`` bytecode; the workspace's own source compiled unless
    ``upper`` says what the command wrote instead."""
    upper = upper or compiled(ws)
    return [new_dir(ws, "src/__pycache__"),
            new_file(ws, PYC, source=str(upper))]


def test_new_pycache_files_apply_quietly_and_say_where(ws: Path) -> None:
    reason = quiet_reason(ChangeSet(pycache(ws)), ws)
    assert reason is not None
    assert reason == "without a question: 1 new .gitignored file in src/__pycache__/"


def test_crafted_bytecode_with_a_matching_header_asks(ws: Path) -> None:
    """The wall: the header the importer checks (magic, source mtime and size) is
    right, the code is not the source's: the next unsandboxed import would run it."""
    upper = compiled(ws)
    header = upper.read_bytes()[:16]
    upper.write_bytes(header + marshal.dumps(compile("import os; os.system('x')",
                                                      str(ws / "src" / "a.py"), "exec")))
    assert quiet_reason(ChangeSet(pycache(ws, upper)), ws) is None


@pytest.mark.parametrize("odd", [
    lambda ws: pycache(ws, compiled(ws, "X = 2\n")) and (ws / "src/a.py").write_text("X = 1\n"),
    lambda ws: (ws / "src" / "a.py").unlink(),  # no source of that name in the workspace
])
def test_bytecode_of_another_source_asks(ws: Path, odd: Any) -> None:
    changes = pycache(ws)
    odd(ws)
    assert quiet_reason(ChangeSet(changes), ws) is None


def test_legacy_and_other_interpreters_bytecode_asks(ws: Path) -> None:
    upper = compiled(ws)
    beside = new_file(ws, "build/a.pyc", source=str(upper))  # a sourceless .pyc imports as is
    assert quiet_reason(ChangeSet([new_dir(ws, "build"), beside]), ws) is None
    other = new_file(ws, "src/__pycache__/a.cpython-27.pyc", source=str(upper))
    assert quiet_reason(ChangeSet([new_dir(ws, "src/__pycache__"), other]), ws) is None


HASHED = py_compile.PycInvalidationMode.CHECKED_HASH


@pytest.mark.parametrize("how", [{}, {"optimize": 1}, {"invalidation_mode": HASHED}])
def test_twin_the_sources_own_bytecode_applies_quietly(ws: Path, how: dict[str, Any]) -> None:
    """The twin: what the importer (or py_compile, -O, hash-based) writes for the
    workspace's own source is quiet."""
    upper = compiled(ws, "def f(n):\n    assert n\n    return n * 2\n", **how)
    rel = PYC.replace(".pyc", ".opt-1.pyc") if how.get("optimize") else PYC
    changes = [new_dir(ws, "src/__pycache__"), new_file(ws, rel, source=str(upper))]
    assert quiet_reason(ChangeSet(changes), ws) is not None


def test_not_ignored_asks(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n")
    assert quiet_reason(ChangeSet(pycache(ws)), ws) is None


@pytest.mark.parametrize("odd", [
    lambda ws: new_file(ws, "build/.env"),  # a secret's name, though ignored
    lambda ws: new_file(ws, "build/id_rsa"),
    lambda ws: new_file(ws, "build/run", mode=0o755),  # executable
    lambda ws: new_file(ws, "build/run", mode=0o4644),  # setuid
    lambda ws: new_file(ws, "build/b", link="build/a"),  # a hard link
    lambda ws: Change(ws, "build/l", "create", "symlink", Base(None), target="/etc/passwd"),
    lambda ws: Change(ws, "build/old", "modify", "file", Base("file", 3), mode=0o644),
    lambda ws: Change(ws, "build/old", "delete", None, Base("file", 3)),
    lambda ws: new_file(ws, "build/x", stale=True),  # the user made it meanwhile
    lambda ws: new_file(ws, "notes.txt"),  # not ignored
    lambda ws: new_file(ws.parent / "elsewhere", "build/x"),  # another root (writable_roots)
])
def test_anything_but_plain_new_ignored_files_asks(ws: Path, odd: object) -> None:
    plain = [new_dir(ws, "build"), new_file(ws, "build/a")]
    assert quiet_reason(ChangeSet(plain), ws) is not None  # the twin
    assert quiet_reason(ChangeSet([*plain, odd(ws)]), ws) is None  # type: ignore[operator]


def test_a_refused_settings_change_asks(ws: Path) -> None:
    changes = ChangeSet(pycache(ws), refused=[ws / ".swebash" / "config.toml"])
    assert quiet_reason(changes, ws) is None


def test_a_folder_of_ignored_files_is_quiet_an_empty_unignored_one_is_not(ws: Path) -> None:
    (ws / ".gitignore").write_text("*.pyc\n")  # the folder is not ignored, its files are
    assert quiet_reason(ChangeSet(pycache(ws)), ws) is not None
    assert quiet_reason(ChangeSet([new_dir(ws, "src/empty")]), ws) is None


def test_a_gitignore_the_command_wrote_is_not_honoured(ws: Path) -> None:
    """Read from the real workspace: the command's own `.gitignore` (in the
    overlay) creates a file that is not ignored, so it asks."""
    made = [new_dir(ws, "evil"), new_file(ws, "evil/.gitignore"), new_file(ws, "evil/x")]
    assert quiet_reason(ChangeSet(made), ws) is None


def test_nested_and_parent_gitignores_count(ws: Path, tmp_path: Path) -> None:
    (ws / ".gitignore").unlink()
    (ws / "src" / ".gitignore").write_text("gen/\n")
    assert quiet_reason(ChangeSet([new_dir(ws, "src/gen"), new_file(ws, "src/gen/x")]),
                       ws) is not None
    assert quiet_reason(ChangeSet([new_dir(ws, "gen"), new_file(ws, "gen/x")]), ws) is None
    (tmp_path / ".git").mkdir()  # the git root above the workspace
    (tmp_path / ".gitignore").write_text("gen/\n")
    assert quiet_reason(ChangeSet([new_dir(ws, "gen"), new_file(ws, "gen/x")]),
                        ws) is not None


@pytest.mark.parametrize("rel", [".venv/lib/python3.11/site-packages/evil.pth",
                                 ".venv/lib/python3.11/site-packages/pkg/__init__.py",
                                 "build/sitecustomize.py", "build/node_modules/x/index.js",
                                 f"build/util{importlib.machinery.EXTENSION_SUFFIXES[0]}",
                                 "build/util.so", "build/libhook.so.1"])
def test_code_the_next_run_loads_asks_though_ignored(ws: Path, rel: str) -> None:
    """Not executable, ignored, and still code an unsandboxed python or node loads
    (a native module is imported before the ``.py`` beside it; dlopen needs no x bit)."""
    (ws / ".gitignore").write_text("__pycache__/\nbuild/\n.venv/\n")
    assert quiet_reason(ChangeSet([new_file(ws, rel)]), ws) is None


def test_twin_an_ignored_plain_file_beside_them_applies_quietly(ws: Path) -> None:
    (ws / ".gitignore").write_text("__pycache__/\nbuild/\n.venv/\n")
    assert quiet_reason(ChangeSet([new_file(ws, "build/report.txt")]), ws) is not None
