"""ui.terminal: the one door for a question on the terminal drops what was typed
before the question was drawn; what is typed after it is the answer."""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path

import pexpect

from swebash_py.ui.terminal import discard_typed_ahead

ROOT = Path(__file__).resolve().parents[2]
QUEUED = 0.3  # the pty hands keys to the line discipline asynchronously


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0.2)[0])


def test_typed_ahead_keys_are_dropped() -> None:
    master, slave = os.openpty()
    try:
        os.write(master, b"y\r")
        time.sleep(QUEUED)
        discard_typed_ahead(slave)
        assert not _readable(slave)
    finally:
        os.close(master)
        os.close(slave)


def test_twin_keys_typed_after_the_drop_are_read() -> None:
    master, slave = os.openpty()
    try:
        discard_typed_ahead(slave)
        os.write(master, b"y\r")
        assert _readable(slave) and os.read(slave, 16).startswith(b"y")
    finally:
        os.close(master)
        os.close(slave)


def test_a_pipe_is_left_alone() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"kept\n")
        discard_typed_ahead(read)  # not a terminal: nothing to drop
        assert os.read(read, 16) == b"kept\n"
    finally:
        os.close(read)
        os.close(write)


def _asker(gate: Path) -> pexpect.spawn:
    """A process on a pty that says READY, waits for ``gate``, then asks."""
    code = ("import os, time\n"
            "from swebash_py.ui.terminal import ask_line\n"
            "print('READY', flush=True)\n"
            f"while not os.path.exists({str(gate)!r}): time.sleep(0.02)\n"
            "print('ANSWER=' + repr(ask_line('Proceed? ')), flush=True)\n")
    return pexpect.spawn(sys.executable, ["-c", code], cwd=str(ROOT), encoding="utf-8",
                         timeout=20)


def test_ask_line_reads_only_what_is_typed_after_the_question(tmp_path: Path) -> None:
    child = _asker(tmp_path / "gate")
    child.expect("READY")
    child.send("y\r")  # at an imitation, before the question
    time.sleep(QUEUED)
    (tmp_path / "gate").touch()
    child.expect("Proceed\\? ")
    child.send("n\r")
    child.expect("ANSWER='n'")
    child.expect(pexpect.EOF)


def test_twin_ask_line_reads_the_answer(tmp_path: Path) -> None:
    child = _asker(tmp_path / "gate")
    child.expect("READY")
    (tmp_path / "gate").touch()
    child.expect("Proceed\\? ")
    child.send("yes\r")
    child.expect("ANSWER='yes'")
    child.expect(pexpect.EOF)


def test_only_the_one_door_opens_the_terminal_or_flushes_it() -> None:
    """A second asker that opens /dev/tty itself would be a second door, one
    that could forget to drop typed-ahead keys."""
    package = ROOT / "swebash_py"
    found = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                   if '"/dev/tty"' in p.read_text() or "tcflush" in p.read_text())
    assert found == ["ui/terminal.py"]
