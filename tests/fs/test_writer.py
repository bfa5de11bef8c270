"""The one writer: every operation reaches its folder by a descriptor walk that
follows no symlink. Each operation, with ``d`` swapped for a symlink to a
folder outside, raises ``ParentMoved`` and leaves the outside as it was; its
twin, with ``d`` a real folder, does what it says."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from swebash_py.fs.writer import Meta, ParentMoved, Writer, fill_bytes

Op = Callable[[Writer, Path], None]


def _symlink(writer: Writer, d: Path) -> None:
    writer.place(d / "link", lambda folder, tmp: folder.symlink("target", tmp))


OPS: dict[str, tuple[Op, Callable[[Path], bool]]] = {
    # name: (the operation on folder d, what it did when d is real)
    "write_file": (lambda w, d: w.write_file(d / "new.txt", fill_bytes(b"new"), Meta(0o644)),
                   lambda d: (d / "new.txt").read_bytes() == b"new"),
    "write_over": (lambda w, d: w.write_over(d / "f.txt", fill_bytes(b"over")),
                   lambda d: (d / "f.txt").read_bytes() == b"over"),
    "mkdir": (lambda w, d: w.mkdir(d / "sub"), lambda d: (d / "sub").is_dir()),
    "makedirs": (lambda w, d: w.makedirs(d / "a" / "b"), lambda d: (d / "a" / "b").is_dir()),
    "unlink": (lambda w, d: w.unlink(d / "f.txt"), lambda d: not (d / "f.txt").exists()),
    "remove-tree": (lambda w, d: w.remove(d / "tree"), lambda d: not (d / "tree").exists()),
    "rmdir": (lambda w, d: w.rmdir(d / "empty"), lambda d: not (d / "empty").exists()),
    "rename-from": (lambda w, d: w.rename(d / "f.txt", d.parent / "moved.txt"),
                    lambda d: (d.parent / "moved.txt").exists()),
    "rename-into": (lambda w, d: w.rename(d.parent / "top.txt", d / "top.txt"),
                    lambda d: (d / "top.txt").exists()),
    "link": (lambda w, d: w.link(d.parent / "top.txt", d / "hard"),
             lambda d: (d / "hard").stat().st_nlink == 2),
    "symlink": (_symlink, lambda d: os.readlink(d / "link") == "target"),
    "set_meta": (lambda w, d: w.set_meta(d / "f.txt", Meta(0o600, xattrs=(("user.k", b"v"),))),
                 lambda d: (d / "f.txt").stat().st_mode & 0o777 == 0o600
                 and os.getxattr(d / "f.txt", "user.k") == b"v"),
}


def _tree(root: Path) -> None:
    root.mkdir(parents=True)
    (root / "f.txt").write_text("f")
    (root / "f.txt").chmod(0o644)
    (root / "tree" / "in").mkdir(parents=True)
    (root / "tree" / "in" / "x").write_text("x")
    (root / "empty").mkdir()


def _listing(root: Path) -> list[tuple[str, int, bytes | None]]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            p = Path(dirpath, name)
            out.append((str(p.relative_to(root)), p.lstat().st_mode,
                        p.read_bytes() if p.is_file() else None))
    return sorted(out)


@pytest.mark.parametrize("swapped", [True, False])
@pytest.mark.parametrize("name", list(OPS))
def test_each_operation_never_follows_a_swapped_folder(tmp_path: Path, name: str,
                                                       swapped: bool) -> None:
    ws, outside = tmp_path.resolve() / "ws", tmp_path.resolve() / "outside"
    _tree(ws / "d")
    _tree(outside)
    (ws / "top.txt").write_text("top")
    if swapped:
        os.rename(ws / "d", tmp_path / "d-moved")
        os.symlink(outside, ws / "d")
    before = _listing(outside)
    op, did = OPS[name]
    with Writer([ws]) as writer:
        if swapped:
            with pytest.raises(ParentMoved, match="symlink; not followed"):
                op(writer, ws / "d")
        else:
            op(writer, ws / "d")
    assert _listing(outside) == before
    if not swapped:
        assert did(ws / "d")


@pytest.mark.parametrize("inside", ["symlink", "real"])
def test_removing_a_tree_does_not_follow_a_symlink_inside_it(tmp_path: Path,
                                                              inside: str) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "tree").mkdir(parents=True)
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    if inside == "symlink":
        os.symlink(outside, ws / "tree" / "out")
    else:  # twin: a real folder inside is removed with its files
        (ws / "tree" / "out").mkdir()
        (ws / "tree" / "out" / "keep.txt").write_text("gone")
    with Writer([ws]) as writer:
        writer.remove(ws / "tree")
    assert not (ws / "tree").exists()
    assert (outside / "keep.txt").read_text() == "keep"


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_metadata_is_set_on_the_name_itself_never_a_link_target(tmp_path: Path,
                                                               kind: str) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s")
    secret.chmod(0o600)
    ws = tmp_path / "ws"
    ws.mkdir()
    if kind == "symlink":
        os.symlink(secret, ws / "f")
    else:  # twin: a real file gets its bits
        (ws / "f").write_text("f")
    with Writer([ws]) as writer:
        if kind == "symlink":
            with pytest.raises(ParentMoved):
                writer.set_meta(ws / "f", Meta(0o777))
        else:
            writer.set_meta(ws / "f", Meta(0o640))
            assert (ws / "f").stat().st_mode & 0o777 == 0o640
    assert secret.stat().st_mode & 0o777 == 0o600


def test_a_root_given_through_a_symlink_is_the_users_choice(tmp_path: Path) -> None:
    """The workspace itself may be reached through a link (the user chose it);
    only what lies beneath it is walked without following."""
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "alias")
    with Writer([tmp_path / "alias"]) as writer:
        writer.makedirs(tmp_path / "alias" / "a")
        writer.write_file(tmp_path / "alias" / "a" / "f", fill_bytes(b"x"), Meta(0o644))
    assert (real / "a" / "f").read_bytes() == b"x"


def test_relative_and_dotdot_paths_are_refused(tmp_path: Path) -> None:
    with Writer([tmp_path]) as writer:
        for bad in (Path("rel/f"), tmp_path / ".." / "f"):
            with pytest.raises(ValueError):
                writer.mkdir(bad)


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_writing_in_place_never_follows_a_file_swapped_for_a_link(tmp_path: Path,
                                                                  kind: str) -> None:
    secret = tmp_path / "secret"
    secret.write_text("keep")
    ws = tmp_path / "ws"
    ws.mkdir()
    if kind == "symlink":
        os.symlink(secret, ws / "f")
    else:  # twin: a real file is rewritten in place (same inode)
        (ws / "f").write_text("old contents")
    inode = (ws / "f").lstat().st_ino
    with Writer([ws]) as writer:
        if kind == "symlink":
            with pytest.raises(ParentMoved):
                writer.write_over(ws / "f", fill_bytes(b"new"))
        else:
            writer.write_over(ws / "f", fill_bytes(b"new"))
            assert (ws / "f").read_bytes() == b"new" and (ws / "f").stat().st_ino == inode
    assert secret.read_text() == "keep"
