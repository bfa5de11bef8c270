"""The index of secrets and settings: as complete as a full walk, without
re-reading what did not change. Indexes here trust timestamps at once
(``margin_ns=0``), so the cached path is what is tested; the margin has its own tests."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from swebash_py.sandbox import pathindex
from swebash_py.sandbox.pathindex import PathIndex
from swebash_py.sandbox.secrets import workspace_secrets
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand
from tests.sandbox.conftest import needs_bwrap


def full(root: Path) -> set[Path]:
    return set(workspace_secrets(root))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for sub in ("a/b/c", "d", ".git", "elsewhere/x"):
        (root / sub).mkdir(parents=True)
    (root / ".env").write_text("X=1")
    (root / "a/b/.env.local").write_text("X=1")
    (root / "a/.env.example").write_text("X=")  # harmless: not masked
    (root / ".git/.env").write_text("X=1")  # .git is skipped, as by the full walk
    (root / "elsewhere/x/.env").write_text("X=1")
    (root / "link").symlink_to(root / "elsewhere")  # not followed
    # timestamps are coarse (one clock tick): with the tree's directories dated 10 s
    # back, a change made now always moves a timestamp (their ctime moves to now)
    past = time.time() - 10
    for directory in [root, *(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())]:
        os.utime(directory, (past, past))
    return root


def test_matches_the_full_walk_and_rereads_nothing_unchanged(tree: Path) -> None:
    index = PathIndex(margin_ns=0)
    assert set(index.find(tree).secrets) == full(tree) == {
        tree / ".env", tree / "a/b/.env.local", tree / "elsewhere/x/.env"}
    before = index.listings
    assert set(index.find(tree).secrets) == full(tree)
    assert index.listings == before  # every directory came from the index


def _in_existing_dir(root: Path) -> None:
    (root / "d/.env").write_text("S=1")


def _in_new_dir(root: Path) -> None:
    (root / "new").mkdir()
    (root / "new/.env").write_text("S=1")


def _in_deep_new_dirs(root: Path) -> None:
    (root / "p/q/r/s/t").mkdir(parents=True)
    (root / "p/q/r/s/t/.env.production").write_text("S=1")


def _in_existing_deep_dir(root: Path) -> None:
    (root / "a/b/c/.env").write_text("S=1")


def _renamed_into_place(root: Path) -> None:
    (root / "a/b/c/draft").write_text("S=1")
    os.rename(root / "a/b/c/draft", root / "a/b/c/.env")


def _renamed_from_another_dir(root: Path) -> None:
    (root / "d/draft").write_text("S=1")
    os.rename(root / "d/draft", root / "a/.env")


def _directory_moved_in(root: Path) -> None:
    outside = root.parent / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep/.env").write_text("S=1")
    shutil.move(str(outside), str(root / "a/b/moved"))


def _removed(root: Path) -> None:
    (root / "a/b/.env.local").unlink()


SCENARIOS: list[Callable[[Path], None]] = [
    _in_existing_dir, _in_new_dir, _in_deep_new_dirs, _in_existing_deep_dir,
    _renamed_into_place, _renamed_from_another_dir, _directory_moved_in, _removed]


@pytest.mark.parametrize("change", SCENARIOS, ids=lambda f: f.__name__.strip("_"))
def test_a_change_since_the_last_walk_is_seen(tree: Path,
                                              change: Callable[[Path], None]) -> None:
    index = PathIndex(margin_ns=0)
    index.find(tree)
    change(tree)
    assert set(index.find(tree).secrets) == full(tree)


def make_blind(monkeypatch: pytest.MonkeyPatch) -> None:
    """An index that trusts every listing: a signature without timestamps, size or
    link count, and no doubt about recent ones."""
    monkeypatch.setattr(pathindex, "signature", lambda st: (st.st_dev, st.st_ino))
    monkeypatch.setattr(PathIndex, "_settled", lambda self, st, listed_ns: True)


def test_twin_an_index_blind_to_timestamps_misses_them(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests above can fail: an index blind to changes answers from its stale
    listing."""
    make_blind(monkeypatch)
    index = PathIndex(margin_ns=0)
    index.find(tree)
    _in_existing_dir(tree)
    assert tree / "d/.env" not in set(index.find(tree).secrets)
    assert tree / "d/.env" in full(tree)


def test_recent_timestamps_are_not_trusted(tree: Path) -> None:
    """A directory changed within the margin of its listing is read again even
    when its signature looks unchanged (a change in the same clock tick)."""
    index = PathIndex()  # the default margin: all of ``tree`` was just written
    index.find(tree)
    before = index.listings
    index.find(tree)
    assert index.listings - before == len(index._roots[str(tree)])
    settled = PathIndex(clock=lambda: 2**62)  # twin: listed long after any change
    settled.find(tree)
    before = settled.listings
    settled.find(tree)
    assert settled.listings == before


def test_gone_directories_are_forgotten(tree: Path) -> None:
    index = PathIndex(margin_ns=0)
    index.find(tree)
    shutil.rmtree(tree / "a")
    assert set(index.find(tree).secrets) == full(tree)
    assert not any(p.startswith(str(tree / "a")) for p in index._roots[str(tree)])


# -- through run_command: what the previous command wrote is masked in the next ---------

SECRET = "S3CRET-VALUE-42"
WRITERS = {
    "existing dir": ("mkdir -p d && : > d/keep", f"echo {SECRET} > d/.env", "cat d/.env"),
    "new dir": ("true", f"mkdir n && echo {SECRET} > n/.env", "cat n/.env"),
    "deep dir": ("true", f"mkdir -p p/q/r/s && echo {SECRET} > p/q/r/s/.env.local",
                 "cat p/q/r/s/.env.local"),
    "renamed into place": ("mkdir -p d && : > d/keep",
                           f"echo {SECRET} > d/draft && mv d/draft d/.env", "cat d/.env"),
}


def _run(workspace: Path, command: str) -> str:
    ctx = ToolContext(workspace=workspace, grant="write")
    args = RunCommand.Args.parse({"command": command})
    return asyncio.run(RunCommand().run(args, ctx)).output


@needs_bwrap
@pytest.mark.parametrize("case", list(WRITERS))
@pytest.mark.parametrize("blind", [False, True])
def test_written_by_the_previous_command_masked_in_the_next(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, case: str, blind: bool) -> None:
    """Twin (``blind``): an index that never notices changes lets the next command
    read the secret, so the check is real."""
    monkeypatch.setattr(pathindex, "INDEX", PathIndex(margin_ns=0))
    if blind:
        make_blind(monkeypatch)
    setup, write, read = WRITERS[case]
    _run(workspace, setup)  # the index learns the tree
    _run(workspace, write)
    assert (SECRET in _run(workspace, read)) is blind


# -- one list: every secret the file tools know, at any depth; settings too -----------

SECRETS = ["id_rsa", "a/id_ed25519", "a/b/server.pem", "a/b/c/tls.key", "d/credentials.json",
           "d/.netrc", "deep/x/y/z/.env.production", "home/.ssh/known_hosts",
           "home/.config/gcloud/token.db", "home/.azure/profile", "w/.docker/config.json",
           "w/keys/store.jks"]
ORDINARY = ["readme.md", "a/b/notes.txt", "d/credentials.md", "home/.config/other.toml",
            "deep/x/.env.example", "w/docker.txt", "a/pem.txt"]
SETTINGS = ["a/.swebash", "deep/x/y/.swebash", ".swebash"]


@pytest.fixture
def rich(tmp_path: Path) -> Path:
    root = tmp_path / "rich"
    for rel in [*SECRETS, *ORDINARY]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    for rel in SETTINGS:
        (root / rel).mkdir(parents=True)
    return root


def covered(path: Path, masks: set[Path]) -> bool:
    return any(path == m or path.is_relative_to(m) for m in masks)


def test_every_secret_the_file_tools_know_is_found_and_no_other(rich: Path) -> None:
    """The index's secrets are the full walk's, every file ``is_sensitive`` calls a
    secret (the file tools' test) is at or under one; twin: no ordinary file is."""
    from swebash_py.sandbox.secrets import is_sensitive

    found = PathIndex(margin_ns=0).find(rich)
    masks = set(found.secrets)
    assert masks == full(rich)
    for rel in SECRETS:
        assert is_sensitive(Path(rel)) and covered(rich / rel, masks), rel
    for rel in ORDINARY:
        assert not is_sensitive(Path(rel)) and not covered(rich / rel, masks), rel
    assert rich / "home/.ssh" in masks  # a secret folder is masked whole


def test_settings_are_found_at_any_depth_and_new_ones_seen(rich: Path) -> None:
    index = PathIndex(margin_ns=0)
    assert set(index.find(rich).settings) == {rich / rel for rel in SETTINGS}
    (rich / "new/deeper/.swebash").mkdir(parents=True)
    assert rich / "new/deeper/.swebash" in index.find(rich).settings


# -- the copy kept in our data dir between runs (issue #28 item 7) --

def _backdated(root: Path) -> None:
    """A change whose directory's mtime is set back to what it was: ctime moves."""
    st = os.stat(root / "d")
    (root / "d/.env").write_text("S=1")
    os.utime(root / "d", ns=(st.st_atime_ns, st.st_mtime_ns))


def _next_run(tmp_path: Path, margin_ns: int = 0) -> PathIndex:
    """A new process's index: nothing in memory, the copies in ``tmp_path/idx``."""
    return PathIndex(margin_ns=margin_ns, persisted=lambda: tmp_path / "idx")


def test_a_fresh_persisted_copy_is_used_by_the_next_run(tree: Path, tmp_path: Path) -> None:
    _next_run(tmp_path).find(tree)
    later = _next_run(tmp_path)
    assert set(later.find(tree).secrets) == full(tree)
    assert later.listings == 0  # nothing listed again: the copy answered
    assert set(later.find(tree).settings) == set()
    assert [p.stat().st_mode & 0o777 for p in (tmp_path / "idx").iterdir()] == [0o600]


@pytest.mark.parametrize("change", [*SCENARIOS, _backdated],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_stale_persisted_copy_is_not_trusted(tree: Path, tmp_path: Path,
                                               change: Callable[[Path], None]) -> None:
    """Someone who can write the workspace but not our data dir changes the tree
    between two runs: the next run's answer is the full walk's, not the copy's."""
    _next_run(tmp_path).find(tree)
    change(tree)
    later = _next_run(tmp_path)
    assert set(later.find(tree).secrets) == full(tree)
    assert later.listings > 0


def test_twin_a_blind_index_would_answer_from_the_stale_copy(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: the next run does answer from the persisted copy."""
    make_blind(monkeypatch)
    _next_run(tmp_path).find(tree)
    _in_existing_dir(tree)
    assert tree / "d/.env" not in set(_next_run(tmp_path).find(tree).secrets)


def test_a_copy_saved_within_the_margin_is_read_again(tree: Path, tmp_path: Path) -> None:
    """The racily-clean rule holds for a persisted copy: listed right after the
    tree was written (the default margin), every directory is listed again."""
    (tree / "d/.env").write_text("S=1")  # ``d`` changed just now
    _next_run(tmp_path, margin_ns=pathindex.MARGIN_NS).find(tree)
    later = _next_run(tmp_path, margin_ns=pathindex.MARGIN_NS)
    assert set(later.find(tree).secrets) == full(tree)
    assert later.listings >= 1


@pytest.mark.parametrize("damage", ["garbage", "other root", "other format"])
def test_an_unusable_copy_is_ignored(tree: Path, tmp_path: Path, damage: str) -> None:
    other = tmp_path / "other"
    shutil.copytree(tree, other, symlinks=True)
    _next_run(tmp_path).find(other)
    (copy,) = (tmp_path / "idx").iterdir()
    mine = copy.with_name(next(iter(_names_for(tmp_path, tree))))
    if damage == "garbage":
        mine.write_bytes(b"\x93not msgpack")
    elif damage == "other root":  # another root's copy under this root's name
        copy.rename(mine)
    else:
        data = pathindex.msgspec.msgpack.decode(copy.read_bytes(), type=pathindex._Saved)
        data.format, data.root = pathindex.FORMAT + 1, str(tree)
        mine.write_bytes(pathindex.msgspec.msgpack.encode(data))
    later = _next_run(tmp_path)
    assert set(later.find(tree).secrets) == full(tree)
    assert later.listings == len(later._roots[str(tree)])  # every directory listed


def _names_for(tmp_path: Path, root: Path) -> list[str]:
    index = _next_run(tmp_path)
    path = index._copy_of(str(root))
    assert path is not None
    return [path.name]
