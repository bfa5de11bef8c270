"""cli.pager: which pager runs, and the fallbacks when none can."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from swebash_py.cli import pager


@pytest.mark.parametrize(("value", "command"), [
    (None, ["less", "-R"]),  # the default
    ("most -s", ["most", "-s"]),
    ("", None),  # PAGER= : no pager
    ("cat", None),
    ("/bin/cat", None),
])
def test_the_pager_command(monkeypatch: pytest.MonkeyPatch, value: str | None,
                           command: list[str] | None) -> None:
    if value is None:
        monkeypatch.delenv("PAGER", raising=False)
    else:
        monkeypatch.setenv("PAGER", value)
    assert pager.pager_command() == command


def test_a_pager_that_cannot_start_leaves_the_text_on_stdout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGER", "/nonexistent/pager")
    with pager.paged(True) as out:
        assert out is sys.stdout


def test_twin_a_pager_that_starts_gets_the_text(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    target = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"{sys.executable} -c \"import sys; "
                                f"open({str(target)!r}, 'w').write(sys.stdin.read())\"")
    with pager.paged(True) as out:
        assert out is not sys.stdout
        out.write("hello pager\n")
    assert target.read_text() == "hello pager\n"


def test_piped_no_pager_is_asked_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    monkeypatch.setenv("PAGER", f"touch {marker}")
    with pager.paged(False) as out:
        assert out is sys.stdout
    assert not marker.exists()
