"""Long output on a terminal goes to the user's pager, fed as it is produced.

``$PAGER`` (default ``less -R``, with git's ``LESS=FRX`` when the user has no
``$LESS``: a short text is printed and left on the screen, a long one pages)
reads what we write from a pipe, so its first screen shows while the rest is
still being rendered. Piped, or with no pager to start, the text goes to
stdout as it is. When the user quits the pager early, writing stops quietly.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from typing import TextIO, cast

DEFAULT = "less -R"


def pager_command() -> list[str] | None:
    """The pager to run; None for none (``PAGER=`` or ``PAGER=cat`` means plain)."""
    raw = os.environ.get("PAGER")
    words = shlex.split(DEFAULT if raw is None else raw)
    if not words or os.path.basename(words[0]) == "cat":
        return None
    return words


@contextlib.contextmanager
def paged(use_pager: bool) -> Iterator[TextIO]:
    """A text stream to write to: the pager's stdin when ``use_pager`` and one
    starts, else stdout. A reader that goes away (the user quit the pager, or
    closed our pipe) ends the block quietly."""
    command = pager_command() if use_pager else None
    proc = _start(command) if command else None
    if proc is None or proc.stdin is None:
        try:
            yield sys.stdout
            sys.stdout.flush()
        except BrokenPipeError:  # `ai sessions show | head`
            from swebash_py.cli.pipes import quiet_broken_pipe

            quiet_broken_pipe()
        return
    stream = cast(TextIO, proc.stdin)  # text=True: a text stream
    try:
        yield stream
    except BrokenPipeError:
        pass  # the user quit the pager before the end: nothing more to show
    finally:
        with contextlib.suppress(OSError):
            stream.close()
        _wait(proc)


def _start(command: list[str]) -> subprocess.Popen[str] | None:
    env = {**os.environ}
    env.setdefault("LESS", "FRX")  # as git does: quit if one screen, keep it shown
    env.setdefault("LV", "-c")
    try:
        sys.stdout.flush()
        return subprocess.Popen(command, stdin=subprocess.PIPE, text=True, env=env,
                                encoding="utf-8", errors="replace")
    except OSError:  # no such pager: print it instead
        return None


def _wait(proc: subprocess.Popen[str]) -> None:
    """Wait for the pager (the user reads at their pace); Ctrl-C goes to it too,
    and ``less`` ignores it, so we keep waiting rather than leave it orphaned."""
    while True:
        try:
            proc.wait()
            return
        except KeyboardInterrupt:
            continue
