"""Regex search over files: ripgrep when it is on PATH, else a Python walk.

The Python fallback honours a well-defined subset of .gitignore: the
``.gitignore`` files of the searched directory, its subdirectories and its
ancestors up to the workspace; blank lines and ``#`` comments skipped; ``!``
negation (last match wins); a trailing ``/`` matches directories only; a
pattern containing ``/`` is anchored to its file's directory, otherwise it
matches a name at any depth; ``*``, ``?``, ``[...]`` and ``**`` as in git.
``.git``, ``node_modules`` and ``.venv`` are always skipped, as are symlinks,
non-regular files and binary files (a NUL in the first 8 KiB). Python ``re``
syntax is used by the fallback, ripgrep's by rg (they agree on the common
subset).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import os
import re
import shutil
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from swebash_py.errors import ToolFailed
from swebash_py.fs.workspace import SecretsFilter, is_inside, shown_path
from swebash_py.sandbox.secrets import exclusion_globs
from swebash_py.tools.base import ToolResult
from swebash_py.tools.proclines import stream_lines

MATCH_CAP = 200
TIMEOUT = 30.0  # well inside the executor's (command_timeout + 15 s)
STOPPED = "[search stopped after its {timeout:g} s timeout; the matches above came first]"
LINE_SHOW = 300
CHUNK = 1024 * 1024
ALWAYS_SKIP = frozenset({".git", ".hg", ".svn", "node_modules", ".venv"})


@dataclass
class _Rule:
    base: str
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool


def _glob_to_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1:end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out) + r"\Z"


@dataclass
class GitIgnore:
    """The rules of the .gitignore files seen so far."""

    rules: list[_Rule] = field(default_factory=list)

    def load(self, directory: str) -> None:
        try:
            with open(os.path.join(directory, ".gitignore"), encoding="utf-8",
                      errors="replace") as f:
                lines = f.read(1024 * 1024).splitlines()
        except OSError:
            return
        for line in lines:
            self._add(directory, line.rstrip())

    def _add(self, base: str, line: str) -> None:
        if not line or line.startswith("#"):
            return
        negate = line.startswith("!")
        line = line[1:] if negate else line.removeprefix("\\")
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            return
        anchored = "/" in line
        with contextlib.suppress(re.error):
            regex = re.compile(_glob_to_regex(line.lstrip("/")))
            self.rules.append(_Rule(base, regex, negate, dir_only, anchored))

    def ignored(self, path: str, is_dir: bool) -> bool:
        verdict = False
        for rule in self.rules:
            if rule.dir_only and not is_dir:
                continue
            rel = os.path.relpath(path, rule.base)
            if rel.startswith(".."):
                continue
            target = rel if rule.anchored else os.path.basename(path)
            if rule.regex.match(target):
                verdict = not rule.negate
        return verdict


@dataclass
class _Search:
    regex: re.Pattern[str]
    root: Path
    glob: str | None
    workspace: Path
    stop: threading.Event
    secrets: SecretsFilter
    matches: list[str] = field(default_factory=list)
    files: int = 0

    def run(self) -> None:
        if self.root.is_file():
            self._file(str(self.root))
            return
        ignore = GitIgnore()
        for ancestor in reversed(self.root.parents):
            if is_inside(ancestor, self.workspace):
                ignore.load(str(ancestor))
        for dirpath, dirnames, filenames in os.walk(self.root):
            ignore.load(dirpath)
            dirnames[:] = sorted(d for d in dirnames if d not in ALWAYS_SKIP
                                 and not ignore.ignored(os.path.join(dirpath, d), True)
                                 and not self.secrets.hidden(os.path.join(dirpath, d)))
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                if ignore.ignored(full, False) or not self._glob_ok(full, name):
                    continue
                if self._file(full) or self.stop.is_set():
                    return

    def _glob_ok(self, full: str, name: str) -> bool:
        if not self.glob:
            return True
        if "/" not in self.glob:
            return fnmatch.fnmatchcase(name, self.glob)
        return fnmatch.fnmatchcase(os.path.relpath(full, self.root), self.glob)

    def _file(self, full: str) -> bool:
        """Search one file; True once the match cap is reached."""
        try:
            if not stat.S_ISREG(os.lstat(full).st_mode) or self.secrets.hidden(full):
                return False
            with open(full, "rb") as f:
                if b"\x00" in f.read(8192):
                    return False
                f.seek(0)
                self.files += 1
                return self._lines(f, full)
        except OSError:
            return False

    def _lines(self, f: BinaryIO, full: str) -> bool:
        lineno = 1
        readline = f.readline
        while chunk := readline(CHUNK):
            if lineno % 4096 == 0 and self.stop.is_set():
                return True
            text = chunk.decode("utf-8", "replace").rstrip("\r\n")
            if m := self.regex.search(text):
                self.matches.append(format_match(self._shown(full), lineno, text, m.start()))
                if len(self.matches) >= MATCH_CAP:
                    return True
            if chunk.endswith(b"\n"):
                lineno += 1
        return False

    def _shown(self, full: str) -> str:
        return shown_path(Path(full), self.workspace)


def format_match(shown: str, lineno: int, text: str, start: int) -> str:
    """``file:line: text``, with a long line cut around the match."""
    text = text.strip()
    if len(text) > LINE_SHOW:
        begin = max(0, min(start - LINE_SHOW // 3, len(text) - LINE_SHOW))
        text = ("…" if begin else "") + text[begin:begin + LINE_SHOW] + "…"
    return f"{shown}:{lineno}: {text}"


def summarize(matches: list[str], pattern: str, shown_root: str, files: int | None,
              engine: str, timeout: float | None = None) -> ToolResult:
    """The matches; ``timeout`` when the search ended by it (the rest unsearched)."""
    where = f"{shown_root}" + (f" ({files} files searched)" if files is not None else "")
    late = [STOPPED.format(timeout=timeout)] if timeout is not None else []
    meta: dict[str, object] = {"engine": engine, "timed_out": timeout is not None}
    if not matches:
        return ToolResult("\n".join([f"No matches for /{pattern}/ in {where}.", *late]),
                          metadata=meta)
    lines = [*matches, *late]
    if len(matches) >= MATCH_CAP:
        lines.append(f"[stopped after {MATCH_CAP} matches; narrow the pattern, path or glob]")
    return ToolResult("\n".join(lines), metadata={**meta, "matches": len(matches)})


async def search(pattern: str, root: Path, glob: str | None, workspace: Path,
                 timeout: float = TIMEOUT) -> ToolResult:
    """Search ``root`` for ``pattern``; rg when available, else Python. Ends by
    ``timeout`` with the matches found so far."""
    if not root.exists():
        raise ToolFailed(f"{root}: no such file or directory")
    shown_root = shown_path(root, workspace)
    secrets = SecretsFilter(root)
    if shutil.which("rg"):
        matches, late = await _ripgrep(pattern, root, glob, workspace, secrets, timeout)
        return summarize(matches, pattern, shown_root, None, "rg", timeout if late else None)
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolFailed(f"invalid regular expression {pattern!r}: {exc}") from exc
    job = _Search(regex, root, glob, workspace, threading.Event(), secrets)
    late = False
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.to_thread(job.run)), timeout)
    except TimeoutError:
        late = True
    finally:
        job.stop.set()  # the thread sees it within a few thousand lines
    return summarize(job.matches[:MATCH_CAP], pattern, shown_root, job.files, "python",
                     timeout if late else None)


async def _ripgrep(pattern: str, root: Path, glob: str | None, workspace: Path,
                   secrets: SecretsFilter, timeout: float) -> tuple[list[str], bool]:
    """The first matches in path order, and whether the timeout ended the search."""
    # --sort path: the same question gets the same answer, whatever the order
    # rg's threads finish in; it costs the parallel walk (a full scan of 22k
    # files with no match: ~0.25 s -> ~0.5 s), and makes the capped case cheap
    # (the first 200 in path order, then rg is killed: ~0.03 s instead of a full
    # scan to sort afterwards)
    argv = ["rg", "--json", "--no-config", "--no-require-git", "--hidden", "--no-follow",
            "--sort", "path", "--glob", "!.git", "--glob", "!node_modules", "--glob", "!.venv"]
    if not secrets.open:
        for secret in exclusion_globs():  # rg need not even open them (the filter decides)
            argv += ["--glob", secret]
    argv += ["--glob", glob] if glob else []
    argv += ["--regexp", pattern, "--", str(root)]
    matches: list[str] = []

    def on_line(raw: bytes) -> bool:
        match = _rg_match(raw, workspace, secrets)
        if match is not None:
            matches.append(match)
        return len(matches) < MATCH_CAP

    ended = await stream_lines(argv, cwd=workspace, env=os.environ, timeout=timeout,
                               on_line=on_line)
    if ended.returncode == 2 and not matches and "regex" in ended.stderr:
        raise ToolFailed(f"invalid regular expression {pattern!r}: {ended.stderr.strip()}")
    return matches, ended.timed_out


def _rg_match(raw: bytes, workspace: Path, secrets: SecretsFilter) -> str | None:
    """One line of rg's JSON as ``file:line: text``; None unless a shown match."""
    try:
        event = json.loads(raw)
    except ValueError:
        return None
    if event.get("type") != "match":
        return None
    data = event["data"]
    path = Path(data["path"].get("text", "?"))
    if secrets.hidden(path):
        return None
    text = data["lines"].get("text", "").rstrip("\r\n")
    start = data["submatches"][0]["start"] if data.get("submatches") else 0
    return format_match(shown_path(path, workspace), data["line_number"], text, start)
