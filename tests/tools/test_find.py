"""find_files: glob by name, .gitignore honoured, secrets never listed, bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec
import pytest

from swebash_py.errors import ToolFailed
from swebash_py.tools import find
from swebash_py.tools.base import ToolContext
from swebash_py.tools.find import FindFiles
from tests.tools.conftest import call


def tree(root: Path, names: list[str]) -> None:
    for i, name in enumerate(names):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # later in the list = newer


def listed(output: str) -> list[str]:
    return [line for line in output.splitlines()[1:] if not line.startswith("[")]


async def test_glob_across_directories_newest_first(workspace: Path, ctx: ToolContext) -> None:
    tree(workspace, ["a.py", "src/b.py", "src/deep/c.py", "src/d.txt", "README.md"])
    result = await call(FindFiles(), ctx, pattern="**/*.py")
    assert listed(result.output) == ["src/deep/c.py", "src/b.py", "a.py"]
    assert result.output.startswith("3 files match '**/*.py' (newest first)")
    by_path = await call(FindFiles(), ctx, pattern="*.py", sort="path")
    assert listed(by_path.output) == ["a.py", "src/b.py", "src/deep/c.py"]
    anchored = await call(FindFiles(), ctx, pattern="src/*.py")
    assert listed(anchored.output) == ["src/b.py"]
    under = await call(FindFiles(), ctx, pattern="*.py", path="src/deep")
    assert listed(under.output) == ["src/deep/c.py"]


async def test_gitignore_is_honoured_nested_and_negated(workspace: Path,
                                                        ctx: ToolContext) -> None:
    tree(workspace, ["keep.py", "build/out.py", "gen/x.py", "pkg/skip.py", "pkg/ok.py",
                     "pkg/vip.log", "pkg/other.log", ".git/hooks.py", "node_modules/m.py"])
    (workspace / ".gitignore").write_text("build/\n*.log\ngen\n")
    (workspace / "pkg" / ".gitignore").write_text("skip.py\n!vip.log\n")
    result = await call(FindFiles(), ctx, pattern="*", sort="path")
    assert listed(result.output) == [".gitignore", "keep.py", "pkg/.gitignore", "pkg/ok.py",
                                     "pkg/vip.log"]
    # the ignore file of an ancestor applies when searching a subdirectory
    sub = await call(FindFiles(), ctx, pattern="*.log", path="pkg")
    assert listed(sub.output) == ["pkg/vip.log"]


async def test_without_gitignore_the_same_files_are_found(workspace: Path,
                                                          ctx: ToolContext) -> None:
    """The twin of the test above: the files are there; only the rules hide them."""
    tree(workspace, ["keep.py", "build/out.py", "gen/x.py", "pkg/skip.py"])
    result = await call(FindFiles(), ctx, pattern="*.py", sort="path")
    assert listed(result.output) == ["build/out.py", "gen/x.py", "keep.py", "pkg/skip.py"]


async def test_secrets_are_never_listed(workspace: Path, ctx: ToolContext) -> None:
    tree(workspace, [".env", ".env.local", ".env.example", "config/.env.prod", ".ssh/id_rsa",
                     "certs/server.pem", "app.py"])
    result = await call(FindFiles(), ctx, pattern="*", sort="path")
    assert listed(result.output) == [".env.example", "app.py"]
    with pytest.raises(ToolFailed, match="secrets path"):
        await call(FindFiles(), ctx, pattern="*", path=".ssh")


async def test_bounded_with_a_count_of_what_was_left_out(workspace: Path,
                                                         ctx: ToolContext) -> None:
    tree(workspace, [f"f{i:03}.txt" for i in range(30)])
    result = await call(FindFiles(), ctx, pattern="*.txt", limit=5)
    assert listed(result.output) == ["f029.txt", "f028.txt", "f027.txt", "f026.txt", "f025.txt"]
    assert "[... 25 more not shown" in result.output
    by_path = await call(FindFiles(), ctx, pattern="*.txt", limit=3, sort="path")
    assert listed(by_path.output) == ["f000.txt", "f001.txt", "f002.txt"]


async def test_no_match_and_missing_directory(workspace: Path, ctx: ToolContext) -> None:
    assert "No files match" in (await call(FindFiles(), ctx, pattern="*.rs")).output
    with pytest.raises(ToolFailed, match="no such directory"):
        await call(FindFiles(), ctx, pattern="*", path="nowhere")


def test_outside_the_workspace_is_flagged(workspace: Path, ctx: ToolContext) -> None:
    tool = FindFiles()
    assert tool.preview(tool.Args.parse({"pattern": "*", "path": "/etc"}),
                        ctx).outside
    assert not tool.preview(tool.Args.parse({"pattern": "*"}), ctx).outside


# -- the per-entry policy at any depth (issue #28 item 7: cheap, exactly as strict) --

DEEP = "a/b/c/d"


async def test_secrets_and_our_own_files_are_hidden_at_every_depth(
        workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names of the one list at depth 0-4, a secret subdirectory spanning the
    searched folder (``.config`` searched, ``gh`` in it), our data directory and
    config inside the workspace, and a symlink or a hard link to them or to a secret."""
    data, config = workspace / DEEP / "data", workspace / "cfg" / "config.toml"
    monkeypatch.setenv("SWEBASH_HOME", str(data))
    monkeypatch.setenv("SWEBASH_CONFIG", str(config))
    outside = workspace.parent / "outside"
    tree(outside, [".ssh/id_ed25519"])
    hidden = [f"{d}{name}" for d in ("", "a/", "a/b/", f"{DEEP}/") for name in
              (".env", "id_rsa", "server.key", ".aws/credentials", ".kube/config")]
    tree(workspace, [*hidden, f"{DEEP}/data/sessions.db", "cfg/config.toml",
                     ".config/gh/hosts.yml", f"{DEEP}/.config/gcloud/token"])
    (workspace / "cfg" / "link-to-config").symlink_to(config)
    os.link(config, workspace / "hardlink-to-config")
    (workspace / "a" / "link-to-data").symlink_to(data)
    (workspace / DEEP / "innocent").symlink_to(outside / ".ssh" / "id_ed25519")
    result = await call(FindFiles(), ctx, pattern="*", sort="path")
    assert listed(result.output) == [], result.output
    in_config_dir = await call(FindFiles(), ctx, pattern="*", path=".config")
    assert listed(in_config_dir.output) == []


async def test_the_twin_ordinary_files_at_every_depth_are_found(
        workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same shapes, ordinary names: everything listed (symlinks too, not followed),
    so the test above passes because the policy hides, not because nothing is found."""
    monkeypatch.setenv("SWEBASH_HOME", str(workspace.parent / "data"))
    monkeypatch.setenv("SWEBASH_CONFIG", str(workspace.parent / "config.toml"))
    (workspace.parent / "config.toml").write_text("")
    names = [f"{d}{name}" for d in ("", "a/", "a/b/", f"{DEEP}/") for name in
             ("env.txt", "id.py", "server.txt", "aws/credentials.md", "kube/config")]
    tree(workspace, [*names, f"{DEEP}/data/sessions.db", "cfg/config.toml",
                     ".config/ghost/hosts.yml"])
    (workspace / "cfg" / "link").symlink_to(workspace / "cfg" / "config.toml")
    os.link(workspace / "cfg" / "config.toml", workspace / "hardlink")
    result = await call(FindFiles(), ctx, pattern="*", sort="path")
    expected = sorted([*names, f"{DEEP}/data/sessions.db", "cfg/config.toml",
                       ".config/ghost/hosts.yml", "cfg/link", "hardlink"])
    assert listed(result.output) == expected


PATHS = ["a.py", "src/b.py", "src/deep/c.py", "build/x.o", "build", "docs/r.md", "x.log",
         "keep.log", "src/build/y.py", "node/a.min.js", ".hidden/z.py", "dir", "a/dir/f"]


@pytest.mark.parametrize("lines", [
    ["**/*.py"], ["*.py"], ["src/*.py"], ["src/**"], ["*.py", "!src/**"], ["build/"],
    ["*.log", "!keep.log"], ["/build", "**/deep/**"], ["dir/"], ["# only a comment"]])
def test_the_direct_regexes_answer_as_pathspec_does(lines: list[str]) -> None:
    """The walk asks the patterns' regexes directly (no per-path layers):
    the same answer as pathspec, with negations and directories."""
    import threading

    from swebash_py.fs.workspace import SecretsFilter
    from swebash_py.tools.find import _Find, _Ignores

    spec = pathspec.PathSpec.from_lines("gitignore", lines)
    job = _Find(Path("/r"), spec, 10, True, threading.Event(), SecretsFilter(Path("/r")))
    ignores = _Ignores([("/r", pathspec.GitIgnoreSpec.from_lines(lines),
                         find._regexes(pathspec.GitIgnoreSpec.from_lines(lines)))])
    for rel in PATHS:
        assert job._matches(rel) == spec.match_file(rel), rel
        for is_dir in (False, True):
            want = pathspec.GitIgnoreSpec.from_lines(lines).check_file(
                rel + ("/" if is_dir else "")).include
            assert ignores.ignored("/r/" + rel, is_dir) == bool(want), rel


async def test_paths_are_shown_as_shown_path_shows_them(workspace: Path, ctx: ToolContext,
                                                        tmp_path: Path) -> None:
    """Relative to the workspace below it (from its top or a folder in it), absolute
    outside it: the root's part is worked out once, each path as ``shown_path``."""
    from swebash_py.fs.workspace import shown_path

    outside = tmp_path / "elsewhere"
    tree(outside, ["x.py", "deep/y.py"])
    tree(workspace, ["top.py", "sub/in.py"])
    for where, root in ((".", workspace), ("sub", workspace / "sub"), (str(outside), outside)):
        result = await call(FindFiles(), ctx, pattern="*.py", path=where, sort="path")
        expected = sorted(shown_path(p, workspace) for p in root.rglob("*.py"))
        assert listed(result.output) == expected, where
    assert listed(result.output) == [f"{outside}/deep/y.py", f"{outside}/x.py"]
