"""search_files: the Python fallback (and ripgrep when it is installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swebash_py.errors import ToolFailed
from swebash_py.tools import search as search_mod
from swebash_py.tools.base import ToolContext
from swebash_py.tools.files import SearchFiles
from swebash_py.tools.search import MATCH_CAP, GitIgnore
from tests.tools.conftest import call


@pytest.fixture(params=["python", "rg"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(search_mod.shutil, "which", lambda _name: None)
    elif shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    return str(request.param)


def tree(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


async def test_matches_as_file_line_text(workspace: Path, ctx: ToolContext, engine: str) -> None:
    tree(workspace, {"src/a.py": "import os\ndef foo():\n    return 1\n",
                     "src/b.txt": "no\nfoo bar\n"})
    result = await call(SearchFiles(), ctx, pattern=r"foo\b")
    assert result.output.splitlines() == ["src/a.py:2: def foo():", "src/b.txt:2: foo bar"]
    assert result.metadata["engine"] == engine


async def test_gitignore_and_always_skipped(workspace: Path, ctx: ToolContext,
                                            engine: str) -> None:
    tree(workspace, {
        ".gitignore": "*.log\nbuild/\n/top.txt\n!keep.log\n",
        "app.log": "needle", "keep.log": "needle", "build/out.txt": "needle",
        "top.txt": "needle", "sub/top.txt": "needle", "sub/.gitignore": "local.txt\n",
        "sub/local.txt": "needle", "node_modules/x.js": "needle", ".venv/y.py": "needle",
        ".git/config": "needle", "src/ok.txt": "needle",
    })
    found = {line.split(":")[0] for line in
             (await call(SearchFiles(), ctx, pattern="needle")).output.splitlines()}
    assert found == {"keep.log", "sub/top.txt", "src/ok.txt"}


async def test_root_gitignore_applies_when_searching_a_subdir(workspace: Path,
                                                              ctx: ToolContext) -> None:
    tree(workspace, {".gitignore": "*.gen.py\n", "pkg/a.gen.py": "needle", "pkg/b.py": "needle"})
    out = (await call(SearchFiles(), ctx, pattern="needle", path="pkg")).output
    assert out.splitlines() == ["pkg/b.py:1: needle"]


async def test_binaries_skipped_and_glob_filter(workspace: Path, ctx: ToolContext,
                                                engine: str) -> None:
    tree(workspace, {"blob.bin": b"needle\x00\x01", "a.py": "needle\n", "b.md": "needle\n"})
    out = (await call(SearchFiles(), ctx, pattern="needle", glob="*.py")).output
    assert out.splitlines() == ["a.py:1: needle"]
    out = (await call(SearchFiles(), ctx, pattern="needle")).output
    assert "blob.bin" not in out


async def test_cap_and_long_lines(workspace: Path, ctx: ToolContext, engine: str) -> None:
    tree(workspace, {"many.txt": "hit\n" * (MATCH_CAP + 50),
                     "wide.txt": "x" * 5000 + "MARK" + "y" * 5000 + "\n"})
    out = (await call(SearchFiles(), ctx, pattern="hit")).output.splitlines()
    assert len(out) == MATCH_CAP + 1 and "stopped after" in out[-1]
    wide = (await call(SearchFiles(), ctx, pattern="MARK")).output
    assert "MARK" in wide and len(wide) < 400


async def test_no_match_invalid_regex_missing_path(workspace: Path, ctx: ToolContext,
                                                   engine: str) -> None:
    tree(workspace, {"a.txt": "hello\n"})
    assert "No matches" in (await call(SearchFiles(), ctx, pattern="absent")).output
    with pytest.raises(ToolFailed, match="invalid regular expression"):
        await call(SearchFiles(), ctx, pattern="(unclosed")
    with pytest.raises(ToolFailed, match="no such file"):
        await call(SearchFiles(), ctx, pattern="x", path="nope")


async def test_symlinks_and_fifos_are_not_followed(workspace: Path, ctx: ToolContext,
                                                   tmp_path: Path) -> None:
    import os

    (tmp_path / "outside.txt").write_text("needle\n")
    (workspace / "link.txt").symlink_to(tmp_path / "outside.txt")
    os.mkfifo(workspace / "pipe")
    assert "No matches" in (await call(SearchFiles(), ctx, pattern="needle")).output


def test_gitignore_rules() -> None:
    ignore = GitIgnore()
    for line in ["# comment", "", "*.o", "docs/**/*.tmp", "/only-root", "cache/", "!important.o",
                 "a?c.txt", "[xy].md"]:
        ignore._add("/r", line)
    assert ignore.ignored("/r/deep/x.o", False)
    assert not ignore.ignored("/r/important.o", False)
    assert ignore.ignored("/r/docs/a/b/c.tmp", False) and ignore.ignored("/r/docs/c.tmp", False)
    assert ignore.ignored("/r/only-root", False) and not ignore.ignored("/r/sub/only-root", False)
    assert ignore.ignored("/r/x/cache", True) and not ignore.ignored("/r/x/cache", False)
    assert ignore.ignored("/r/abc.txt", False) and not ignore.ignored("/r/ab/c.txt", False)
    assert ignore.ignored("/r/x.md", False) and not ignore.ignored("/r/z.md", False)
    assert not ignore.ignored("/elsewhere/x.o", False)


async def test_secrets_are_never_read_or_returned(workspace: Path, ctx: ToolContext,
                                                  engine: str, tmp_path: Path) -> None:
    (tmp_path / "real-secret").write_text("TOKEN=leaked-through-link\n")
    tree(workspace, {".env": "TOKEN=dotenv-value\n", "deep/er/.env.prod": "TOKEN=prod\n",
                     ".ssh/config": "TOKEN=ssh\n", "key.pem": "TOKEN=pem\n",
                     "ok.txt": "TOKEN=fine\n", ".env.example": "TOKEN=example\n"})
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".env").symlink_to(tmp_path / "real-secret")
    out = (await call(SearchFiles(), ctx, pattern="TOKEN", path=".")).output
    assert "ok.txt:1: TOKEN=fine" in out
    for leaked in ("dotenv-value", "prod", "=ssh", "=pem", "leaked-through-link"):
        assert leaked not in out
    # twin: asked for by name (the policy asked the user), the secret is searched
    named = (await call(SearchFiles(), ctx, pattern="TOKEN", path=".env")).output
    assert "dotenv-value" in named


async def test_our_own_data_in_the_workspace_is_not_searched(
        workspace: Path, ctx: ToolContext, engine: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWEBASH_HOME", str(workspace / "data"))
    tree(workspace, {"data/approvals.json": "MARK-own\n", "src.txt": "MARK-src\n"})
    out = (await call(SearchFiles(), ctx, pattern="MARK")).output
    assert "MARK-src" in out and "MARK-own" not in out
