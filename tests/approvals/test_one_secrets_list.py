"""One secrets list (#27): the command-text heuristic (``mentions_secret``), the
read-only list's path check and ripgrep's exclusions all come from
``sandbox/secrets.py``, so no name can be a secret to one feature and not to
another. Twins: ordinary names pass each of them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from swebash_py.approvals.policy import is_read_only_command
from swebash_py.fs.workspace import mentions_secret
from swebash_py.sandbox import secrets

PACKAGE = Path(__file__).resolve().parents[2] / "swebash_py"
SECRETS = [*sorted(secrets.SECRET_NAMES), ".env", ".env.local", "server.pem", "tls.key",
           ".ssh/config", "app/.aws/credentials", ".config/gcloud/adc.json"]
ORDINARY = ["notes.txt", ".env.example", "keys.md", "src/main.py"]


@pytest.mark.parametrize("name", SECRETS)
def test_every_listed_name_is_a_secret_to_every_feature(name: str, tmp_path: Path) -> None:
    assert secrets.is_sensitive(Path(name))
    assert mentions_secret(f"cat sub/{name} | head")
    assert not is_read_only_command(["cat", name], tmp_path)


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_pass_every_feature(name: str, tmp_path: Path) -> None:
    """The twin: the same checks let an ordinary file through."""
    assert not secrets.is_sensitive(Path(name))
    assert not mentions_secret(f"cat sub/{name} | head")
    assert is_read_only_command(["cat", name], tmp_path)


def test_ripgrep_exclusions_cover_the_list() -> None:
    globs = secrets.exclusion_globs()
    for name in [*secrets.SECRET_NAMES, *secrets.SECRET_DIRS]:
        assert f"!{name}" in globs
    for suffix in secrets.SECRET_SUFFIXES:
        assert f"!*{suffix}" in globs


def _literals(source: str) -> set[str]:
    """The string constants a module computes with (its docstrings and other bare
    string statements are prose, not lists)."""
    tree = ast.parse(source)
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    return {n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in prose}


def test_no_second_list_names_a_key_file() -> None:
    """A string naming a private key outside the list is a second list in the making."""
    found = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
             if path.name != "secrets.py" or path.parent.name != "sandbox"
             if any("id_rsa" in s or "id_ed25519" in s for s in _literals(path.read_text()))]
    assert found == []


def test_the_second_list_check_sees_one() -> None:
    """Its twin: a literal naming a key file is found."""
    assert any("id_rsa" in s for s in _literals('GLOBS = ("!id_rsa",)'))
    assert not _literals('"""Keys such as id_rsa are secrets."""')
