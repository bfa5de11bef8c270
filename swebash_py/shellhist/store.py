"""Reading this terminal's recorded commands: parse, redact, trim.

The snippet of ``ai shell-init`` appends to ``<data dir>/shellhist/<terminal id>``
one line per finished command, written by the shell itself (a prompt must not
start Python)::

    START<TAB>END<TAB>STATUS<TAB>DIR<TAB>LINE

START and END in seconds since the epoch (decimals allowed, either may be
empty or 0 where the shell has no clock), DIR and
LINE escaped (``\\\\``, ``\\n``, ``\\t``) so that one record is one line. The shell
writes the line raw, so every read here redacts it (``engine.secrets`` patterns and
the secret values of our environment, as tool results are) and writes the file
back redacted and cut to the last ``KEEP`` records: what stays on disk after the
next ``ai`` is what the model may see.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

KEEP = 1_000  # records kept per terminal
STALE_DAYS = 30  # a terminal's file untouched this long is gone (its shell is long closed)
MAX_READ = 4 << 20  # a file grown past this (a runaway loop) is read from its tail
ENV_ID = "SWEBASH_TERM_ID"  # exported by the snippet, one per shell started
_ID = re.compile(r"^[A-Za-z0-9._-]{1,80}$")


@dataclass(frozen=True)
class Entry:
    """One finished command of the user's shell."""

    line: str
    status: int
    cwd: str
    start: float | None = None
    duration: float | None = None

    @property
    def failed(self) -> bool:
        return self.status != 0


def history_dir() -> Path:
    from swebash_py.config.paths import data_dir

    return data_dir() / "shellhist"


def terminal_id(environ: dict[str, str] | None = None) -> str | None:
    """This terminal's id from the environment (None when absent or malformed:
    a path must never be built from an arbitrary value)."""
    found = (environ if environ is not None else os.environ).get(ENV_ID, "")
    return found if _ID.match(found) and found not in (".", "..") else None


def history_file(term: str, directory: Path | None = None) -> Path:
    return (directory or history_dir()) / term


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)),
                  text)


def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def parse_line(raw: str) -> Entry | None:
    """One record, or None for a line that is not one (torn, hand-edited)."""
    parts = raw.split("\t")
    if len(parts) != 5:
        return None
    start, end, status, cwd, line = parts
    try:
        code = int(status)
    except ValueError:
        return None
    if not line.strip():
        return None
    began, ended = _number(start), _number(end)
    duration = ended - began if began and ended and ended >= began else None
    return Entry(unescape(line), code, unescape(cwd), began or None, duration)


def format_entry(entry: Entry) -> str:
    start = "" if entry.start is None else f"{entry.start:.3f}"
    end = "" if entry.start is None or entry.duration is None else (
        f"{entry.start + entry.duration:.3f}")
    return f"{start}\t{end}\t{entry.status}\t{escape(entry.cwd)}\t{escape(entry.line)}\n"


def _number(text: str) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def redacted(entry: Entry, values: list[str]) -> Entry:
    """``entry`` with secrets in its line and directory replaced by ``[REDACTED]``."""
    from swebash_py.engine.secrets import redact
    from swebash_py.process.values import redact as redact_values

    line = redact(redact_values(entry.line, values))
    cwd = redact_values(entry.cwd, values)
    if line == entry.line and cwd == entry.cwd:
        return entry
    return Entry(line, entry.status, cwd, entry.start, entry.duration)


def read_history(term: str | None = None, directory: Path | None = None) -> list[Entry]:
    """This terminal's records, oldest first, redacted; the file is rewritten
    redacted and trimmed when it held a secret or more than ``KEEP`` records.
    Nothing recorded (or no terminal id): an empty list, never an error."""
    term = term or terminal_id()
    if term is None:
        return []
    path = history_file(term, directory)
    raw = _read(path)
    if raw is not None:
        from swebash_py.config.paths import private_file

        private_file(path)  # made by a shell whose umask let others read it
    if raw is None:
        return []
    from swebash_py.process.values import secret_values

    values = secret_values()
    lines = raw.splitlines()
    found = [entry for entry in map(parse_line, lines) if entry is not None]
    clean = [redacted(entry, values) for entry in found[-KEEP:]]
    if len(lines) > KEEP or any(a is not b for a, b in zip(found[-KEEP:], clean, strict=True)):
        _write(path, clean)
    return clean


def _read(path: Path) -> str | None:
    """Our own file in the data dir (not the user's, not a symlink)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_READ:
            f.seek(size - MAX_READ)
            f.readline()  # from the first whole record
        return f.read().decode("utf-8", errors="replace")


def _write(path: Path, entries: list[Entry]) -> None:
    from swebash_py.atomic import write_atomic

    with contextlib.suppress(OSError):  # read-only: the model still gets the redacted records
        write_atomic(path, "".join(map(format_entry, entries)).encode("utf-8"), new_mode=0o600)


def failed(entries: list[Entry], nth: int = 1) -> Entry | None:
    """The ``nth`` last failed command (1: the last), or None. ``ai fix`` itself
    is not one: it fails when the fix it ran failed, and that is not the
    command to fix next."""
    failures = [entry for entry in entries if entry.failed and not _is_fix(entry.line)]
    return failures[-nth] if 0 < nth <= len(failures) else None


def prune(directory: Path, now: float | None = None) -> int:
    """Remove the files of terminals unused for ``STALE_DAYS`` (one per shell
    ever started would pile up); ``ai shell-init`` calls it once per shell.
    Returns how many went."""
    import time

    cutoff = (now if now is not None else time.time()) - STALE_DAYS * 86_400
    gone = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and entry.stat(
                    follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
                gone += 1
    return gone


def _is_fix(line: str) -> bool:
    words = line.split()
    return len(words) >= 2 and os.path.basename(words[0]) in ("ai", "swebash") \
        and words[1] == "fix"
