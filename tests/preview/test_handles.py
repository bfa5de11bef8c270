"""File handles: two names of one inode have one handle; another file has another."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swebash_py.preview import handles


def test_one_inode_one_handle(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a")
    os.link(tmp_path / "a", tmp_path / "b")
    (tmp_path / "c").write_text("a")
    a = handles.of_path(str(tmp_path / "a"))
    if a is None:
        pytest.skip("this filesystem gives no file handles")
    assert handles.of_path(str(tmp_path / "b")) == a
    assert handles.of_path(str(tmp_path / "c")) != a  # twin: same bytes, other inode


def test_an_origin_xattr_is_read_as_a_handle() -> None:
    fid = (2509248).to_bytes(4, "little") + (7).to_bytes(4, "little")
    value = bytes([0, 0xFB, 21 + len(fid), 0, 1]) + bytes(16) + fid
    assert handles.of_origin(value) == (1, fid)
    assert handles.may_hold((1, fid), 2509248) and not handles.may_hold((1, fid), 2509249)
    assert handles.of_origin(b"\0\0not an origin at all") is None
