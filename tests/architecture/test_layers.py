"""Issue #28: the layers, one way, checked. pyproject's ``[tool.importlinter]``
contracts (the check ``scripts/test.sh`` runs as ``lint-imports``) hold for the
package as it is; the twins plant one back-edge (config importing the CLI, inside a
function, where a check that reads only top-level imports would not look) and one
terminal library below the renderer in a copy of the package, and the same check
fails on each: the contracts are not vacuous."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import swebash_py

PACKAGE = Path(swebash_py.__file__).parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"
LINT = Path(sys.executable).with_name("lint-imports")


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with our pyproject, on the package found first under ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT), "--no-cache", str(root / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def copy_with(tmp_path: Path, module: str, planted: str) -> Path:
    """A copy of the package and pyproject with ``planted`` appended to ``module``."""
    shutil.copytree(PACKAGE, tmp_path / "swebash_py",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    target = tmp_path / "swebash_py" / module
    target.write_text(target.read_text() + planted)
    return tmp_path


def layered() -> set[str]:
    """Every module the layers contract names."""
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    layers = next(c["layers"] for c in config["contracts"] if c["type"] == "layers")
    return {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}


def test_every_package_is_in_a_layer() -> None:
    """A new package or top-level module outside the contract would escape it."""
    ours = {f"swebash_py.{p.stem if p.suffix == '.py' else p.name}"
            for p in PACKAGE.iterdir()
            if (p.suffix == ".py" or (p / "__init__.py").exists())
            and p.name not in ("__init__.py", "__main__.py")}
    assert ours - layered() == set()
    assert "swebash_py.config" in ours and "swebash_py.errors" in ours  # twin: it sees them


def test_the_layers_hold() -> None:
    result = lint(PACKAGE.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken" in result.stdout


def test_twin_a_back_edge_inside_a_function_breaks_the_layers(tmp_path: Path) -> None:
    root = copy_with(tmp_path, "config/paths.py",
                     "\n\ndef _planted() -> None:\n"
                     "    from swebash_py.front import build  # noqa\n")
    result = lint(root)
    assert result.returncode != 0
    assert "swebash_py.config.paths -> swebash_py.front.build" in result.stdout


def test_twin_rich_below_the_renderer_is_forbidden(tmp_path: Path) -> None:
    root = copy_with(tmp_path, "tools/find.py", "\n\nimport rich  # noqa\n")
    result = lint(root)
    assert result.returncode != 0
    assert "swebash_py.tools is not allowed to import rich" in result.stdout
    assert "swebash_py.tools.find -> rich" in result.stdout
