"""find_files: files whose path matches a glob, honouring .gitignore.

The glob follows .gitignore syntax (``pathspec``): a pattern with a ``/`` is
anchored to the searched directory (``src/**/*.py``), one without matches a
name at any depth (``*.py``); ``**`` crosses directories. The ``.gitignore``
files of the searched directory, its subdirectories and its ancestors up to the
workspace are honoured (deeper files override shallower ones, ``!`` negation
included). ``.git``, ``node_modules`` and ``.venv`` are skipped, and so is
every secrets path (``.env*``, ``.ssh``, keys: the one list, ``sandbox.secrets``)
and our own data (``workspace.SecretsFilter``, per entry without a system call
unless it is a symlink): they are neither listed nor descended into. Symlinks are listed
but not followed. At most ``limit`` paths are returned, newest first (or by
path), with a count of what was left out; memory stays bounded by ``limit``.
"""

from __future__ import annotations

import asyncio
import heapq
import os
import re
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import pathspec
from msgspec import Meta

from swebash_py.errors import ToolFailed
from swebash_py.fs.workspace import SecretsFilter, is_inside, real_workspace, resolve, shown_path
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult
from swebash_py.tools.search import ALWAYS_SKIP

DEFAULT_LIMIT = 200
MAX_LIMIT = 1000


@dataclass
class _Ignores:
    """The .gitignore specs that apply below a directory: (base, spec), shallowest first."""

    specs: list[tuple[str, pathspec.GitIgnoreSpec, list[re.Pattern[str]]]] = field(
        default_factory=list)

    def load(self, directory: str) -> _Ignores:
        try:
            with open(os.path.join(directory, ".gitignore"), encoding="utf-8",
                      errors="replace") as f:
                lines = f.read(1024 * 1024).splitlines()
        except OSError:
            return self
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        return _Ignores([*self.specs, (directory, spec, _regexes(spec))])

    def ignored(self, full: str, is_dir: bool) -> bool:
        return self.at(os.path.dirname(full)).ignored(os.path.basename(full), is_dir)

    def at(self, directory: str) -> _IgnoresHere:
        """The specs as seen from ``directory`` (a folder the walk is in): each
        with the folder's path relative to its base, worked out once per folder
        instead of once per entry."""
        return _IgnoresHere([(_below(directory, base) + "/" if directory != base else "",
                              spec, regexes) for base, spec, regexes in self.specs])


@dataclass
class _IgnoresHere:
    """``_Ignores`` in one folder: (the folder relative to the spec's base, spec, regexes)."""

    specs: list[tuple[str, pathspec.GitIgnoreSpec, list[re.Pattern[str]]]]

    def ignored(self, name: str, is_dir: bool) -> bool:
        verdict: bool | None = None
        for folder, spec, regexes in self.specs:
            rel = folder + name + ("/" if is_dir else "")
            if not _search(regexes, rel):
                continue  # no pattern matches: the spec has no say (most entries)
            include = spec.check_file(rel).include
            if include is not None:
                verdict = include
        return bool(verdict)


GitIgnores = _Ignores  # the one .gitignore matcher (pathspec); previews judge new files with it


@dataclass
class _Find:
    root: Path
    pattern: pathspec.PathSpec[Any]
    limit: int
    by_path: bool
    stop: threading.Event
    secrets: SecretsFilter
    found: int = 0
    best: list[_Key] = field(default_factory=list)  # a bounded heap

    def __post_init__(self) -> None:
        self._root = str(self.root)
        # without a negation, "some pattern matches" is the spec's whole answer
        plain = all(p.include is not False for p in self.pattern.patterns)
        self._any = _regexes(self.pattern) if plain else None

    def _matches(self, rel: str) -> bool:
        if self._any is not None:
            return _search(self._any, rel)
        return self.pattern.match_file(rel)

    def run(self, ignores: _Ignores) -> None:
        stack = [(str(self.root), ignores)]
        while stack and not self.stop.is_set():
            directory, ignores = stack.pop()
            try:
                with os.scandir(directory) as it:
                    entries = list(it)
            except OSError:
                continue
            if any(entry.name == ".gitignore" for entry in entries):  # no open() per folder
                ignores = ignores.load(directory)
            here = ignores.at(directory)
            prefix = _below(directory, self._root) + "/" if directory != self._root else ""
            for entry in entries:
                name = entry.name
                if name in ALWAYS_SKIP:
                    continue
                # All of a file's tests must pass to list it: the glob, the cheapest
                # and most often failed, comes first (a directory is always tried).
                if entry.is_dir(follow_symlinks=False):
                    if not (self.secrets.hidden_entry(directory, entry)
                            or here.ignored(name, True)):
                        stack.append((entry.path, ignores))
                elif (self._matches(prefix + name)
                      and not self.secrets.hidden_entry(directory, entry)
                      and not here.ignored(name, False)):
                    self._consider(entry, prefix + name)

    def _consider(self, entry: os.DirEntry[str], rel: str) -> None:
        """A file that passed the glob, the secrets policy and the ignores: counted,
        and kept if among the ``limit`` best."""
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            return
        if stat.S_ISDIR(st.st_mode) or self.secrets.is_config(st):
            return
        self.found += 1
        # keep the ``limit`` best in a heap whose top is the worst of them
        key: _Key = _Newer(st.st_mtime, rel) if not self.by_path else _Earlier(rel)
        if len(self.best) < self.limit:
            heapq.heappush(self.best, key)
        elif self.best[0] < key:
            heapq.heapreplace(self.best, key)

    def ordered(self) -> list[str]:
        return [key.rel for key in sorted(self.best, reverse=True)]


@dataclass(frozen=True)
class _Newer:
    """Orders by modification time (ties: path); greater is better."""

    mtime: float
    rel: str

    def __lt__(self, other: _Key) -> bool:
        assert isinstance(other, _Newer)
        return (self.mtime, other.rel) < (other.mtime, self.rel)


@dataclass(frozen=True)
class _Earlier:
    """Orders by path; greater is better (earlier in the sort)."""

    rel: str

    def __lt__(self, other: _Key) -> bool:
        return self.rel > other.rel


_Key = _Newer | _Earlier


def _regexes(spec: pathspec.PathSpec[Any]) -> list[re.Pattern[str]]:
    """The compiled patterns of ``spec`` that take part in matching, tried as
    ``pathspec`` tries them (``regex.search`` on the relative POSIX path, which
    is what the walk builds): calling them directly skips its per-path layers."""
    found = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is not None and regex is not None:
            found.append(regex)
    return found


def _search(regexes: list[re.Pattern[str]], rel: str) -> bool:
    for regex in regexes:  # noqa: SIM110 (a loop, not any(generator): once per entry)
        if regex.search(rel):
            return True
    return False


def _below(full: str, base: str) -> str:
    """``os.path.relpath(full, base)`` for a path the walk built below ``base``
    (a prefix cut: relpath's own work, per entry, cost more than the walk)."""
    prefix = base if base.endswith(os.sep) else base + os.sep
    return full[len(prefix):] if full.startswith(prefix) else os.path.relpath(full, base)


class FindFilesArgs(ToolArgs):
    pattern: Annotated[str, Meta(min_length=1, description=(
        "Glob to match file paths, .gitignore-style: `**/*.py`, `src/**/test_*.ts`, "
        "`*.md` (no `/`: matches the name at any depth)."))]
    path: Annotated[str, Meta(
        description="Directory to search, relative to the workspace.")] = "."
    sort: Annotated[Literal["mtime", "path"], Meta(
        description="`mtime`: most recently modified first (default); `path`: by path.")
    ] = "mtime"
    limit: Annotated[int, Meta(ge=1, le=MAX_LIMIT, description=(
        f"At most this many paths (default {DEFAULT_LIMIT})."))] = DEFAULT_LIMIT


class FindFiles(Tool[FindFilesArgs]):
    name = "find_files"
    kind = "read"
    path_arg = "path"
    description = (
        "Find files by name with a glob (e.g. `**/*.py`), honouring .gitignore and skipping "
        ".git, node_modules, .venv and secrets files. Returns paths relative to the workspace, "
        "most recently modified first (or sorted by path), with a count of any left out."
    )
    Args = FindFilesArgs
    read_only = True

    def preview(self, args: FindFilesArgs, ctx: ToolContext) -> Preview:
        ws = real_workspace(ctx.workspace)
        rp = resolve(args.path, ws)
        return Preview(summary=f"find_files {args.pattern} in {rp.shown(ws)}", paths=[rp.path],
                       outside=rp.outside, sensitive=rp.sensitive, protected=rp.protected,
                       detail=args.pattern)

    async def run(self, args: FindFilesArgs, ctx: ToolContext) -> ToolResult:
        ws = real_workspace(ctx.workspace)
        rp = resolve(args.path, ws)
        shown = rp.shown(ws)
        if rp.sensitive or rp.protected:
            raise ToolFailed(f"{shown} is a secrets path (or swebash's own data); "
                             "find_files does not look there")
        if not rp.path.is_dir():
            raise ToolFailed(f"{shown}: no such directory")
        try:
            spec = pathspec.PathSpec.from_lines("gitignore", [args.pattern])
        except (ValueError, TypeError) as exc:
            raise ToolFailed(f"invalid glob {args.pattern!r}: {exc}") from exc
        job = _Find(rp.path, spec, args.limit, args.sort == "path", threading.Event(),
                    SecretsFilter(rp.path))
        ignores = _Ignores()
        for ancestor in reversed(rp.path.parents):
            if is_inside(ancestor, ws):
                ignores = ignores.load(str(ancestor))
        try:
            await asyncio.to_thread(job.run, ignores)
        finally:
            job.stop.set()
        return _result(job, args, rp.path, ws, shown)


def _result(job: _Find, args: FindFilesArgs, root: Path, ws: Path, shown: str) -> ToolResult:
    meta = {"found": job.found, "shown": min(job.found, args.limit)}
    if not job.found:
        return ToolResult(f"No files match {args.pattern!r} in {shown}.", metadata=meta)
    # ``shown_path(root / rel, ws)`` for each, the root's part worked out once
    # (pathlib per result was a sixth of a search in a 10k-file tree)
    head = shown_path(root, ws)
    lines = [rel if head == "." else os.path.join(head, rel) for rel in job.ordered()]
    order = "newest first" if args.sort == "mtime" else "by path"
    head = f"{job.found} file{'s' if job.found != 1 else ''} match {args.pattern!r} ({order})"
    if job.found > args.limit:
        lines.append(f"[... {job.found - args.limit} more not shown; narrow the pattern or "
                     "path, or raise limit]")
    return ToolResult("\n".join([head + ":", *lines]), metadata=meta)
