"""Every direct import declared (#28 item 5): each third-party module that
``swebash_py`` imports (at the top or inside a function) comes from a
distribution pyproject declares (the default dependencies or the ``team`` /
``images`` extras), and each default dependency is imported; pydantic, only
litellm's and mcp's own, is neither. Twins: a planted import of an undeclared
library is seen; a declared one is not."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "swebash_py"
EXTRAS = ("team", "images")  # features that name their extra when it is missing
# module: why it is imported without being declared
UNDECLARED_OK = {"click": "cli/subcommands.py: only with a typer older than 0.20, whose own "
                          "dependency it then is (newer typers carry typer._click)"}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def declared() -> tuple[set[str], set[str]]:
    """The default dependencies' and the extras' distribution names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    return ({_name(r) for r in project["dependencies"]},
            {_name(r) for extra in EXTRAS for r in extras[extra]})


def third_party(source: str) -> set[str]:
    """The top-level names of the non-stdlib modules ``source`` imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "swebash_py"}


def undeclared(modules: set[str], allowed: set[str]) -> list[str]:
    """``module (distribution)`` for each module no allowed distribution provides."""
    providers = importlib.metadata.packages_distributions()
    bad = []
    for module in sorted(modules - set(UNDECLARED_OK)):
        dists = {_name(d) for d in providers.get(module, [module])}
        if not dists & allowed:
            bad.append(f"{module} ({', '.join(sorted(dists))})")
    return bad


def _imported() -> set[str]:
    return {m for path in PACKAGE.rglob("*.py")
            for m in third_party(path.read_text(encoding="utf-8"))}


def test_every_import_is_declared() -> None:
    default, extras = declared()
    assert undeclared(_imported(), default | extras) == []


def test_every_default_dependency_is_imported_and_pydantic_is_not_ours() -> None:
    default, _extras = declared()
    providers = importlib.metadata.packages_distributions()
    used = {_name(d) for m in _imported() for d in providers.get(m, [m])}
    assert default - used == set()
    assert "pydantic" not in default and "pydantic" not in used


def test_twin_a_planted_undeclared_import_is_seen() -> None:
    default, extras = declared()
    planted = third_party("import os\ndef f():\n    from pydantic import BaseModel\n"
                          "    import rich.console\n")
    assert planted == {"pydantic", "rich"}
    assert undeclared(planted, default | extras) == ["pydantic (pydantic)"]
    assert undeclared({"psycopg", "PIL"}, default) == ["PIL (pillow)", "psycopg (psycopg)"]
    assert undeclared({"psycopg", "PIL"}, default | extras) == []  # the extras declare them
