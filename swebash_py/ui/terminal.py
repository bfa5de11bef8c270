"""The one door for a question on the terminal: typed-ahead input is discarded
before the question is drawn, so only keys typed after it appeared answer it.

Text that imitates a question (the model's answer, a tool's output, an MCP
result) must not harvest a ``y`` typed at the imitation: the real question
that follows would read the queued ``y``. Every asker — the approval question
on /dev/tty, the trust question, ``ai undo``, ``ai -s``'s choice, and the REPL's
prompt-toolkit questions — calls ``discard_typed_ahead`` (here) before drawing.

Stdlib only: the trust question is asked on the start-up path.
"""

from __future__ import annotations

import contextlib
import os

try:
    import termios
except ImportError:  # pragma: no cover - not on POSIX
    termios = None  # type: ignore[assignment]

MAX_ANSWER = 4096  # one line of an answer; more is not an answer anyone typed


def terminal_fd() -> int | None:
    """A file descriptor on the controlling terminal, or None."""
    try:
        return os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None


def has_terminal() -> bool:
    fd = terminal_fd()
    if fd is None:
        return False
    os.close(fd)
    return True


def discard_typed_ahead(fd: int | None) -> None:
    """Drop what was typed on the terminal ``fd`` and not read yet (TCIFLUSH).
    Not a terminal (a pipe in tests): nothing to drop, nothing done."""
    if fd is None or termios is None:
        return
    with contextlib.suppress(termios.error, OSError, ValueError):
        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)


def ask_line(question: str) -> str | None:
    """Draw ``question`` on the controlling terminal (after discarding typed-ahead
    input) and read one line typed after it; None with no terminal, at EOF or
    on Ctrl-C (the caller treats None as "not answered")."""
    fd = terminal_fd()
    if fd is None:
        return None
    try:
        discard_typed_ahead(fd)
        os.write(fd, question.encode("utf-8", "replace"))
        return _read_line(fd)
    except (KeyboardInterrupt, OSError):
        return None
    finally:
        os.close(fd)


def tell(text: str) -> None:
    """A line on the controlling terminal (after an answer); nothing without one."""
    fd = terminal_fd()
    if fd is None:
        return
    try:
        os.write(fd, text.encode("utf-8", "replace") + b"\n")
    except OSError:
        pass
    finally:
        os.close(fd)


def _read_line(fd: int) -> str | None:
    """One line from a terminal in canonical mode; None at EOF before any line."""
    buffer = bytearray()
    while b"\n" not in buffer and len(buffer) < MAX_ANSWER:
        data = os.read(fd, MAX_ANSWER)
        if not data:
            break
        buffer.extend(data)
    if not buffer:
        return None
    return buffer.split(b"\n", 1)[0].decode("utf-8", "replace")
