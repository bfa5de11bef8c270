"""Read-only file tools: read_file, list_directory, search_files.

All paths go through the workspace policy (``workspace.resolve``); reads run
in a worker thread and stream, so a slice of a huge file costs constant memory;
files are opened by the one reader (``fs.reader.open_regular``: regular files
only, refused without blocking, no symlink followed after the path was judged).
The search itself lives in ``search.py``; the writing tools in ``edit.py``.
"""

from __future__ import annotations

import asyncio
import os
import stat
from io import BufferedReader
from pathlib import Path
from typing import Annotated

from msgspec import Meta

from swebash_py.errors import ToolFailed
from swebash_py.fs.reader import file_kind, open_regular, read_capped
from swebash_py.fs.workspace import ResolvedPath, is_inside, real_workspace, resolve
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult
from swebash_py.tools.search import search

READ_CAP = 256 * 1024  # bytes of numbered text per read_file call
DEFAULT_LIMIT = 2000  # lines per read_file call
LINE_CAP = 4096  # bytes shown of one line
ENDLESS_CAP = 16 * 1024 * 1024  # bytes read from a size-0 (/proc-style) file
SNIFF = 8192  # bytes checked for NUL to call a file binary
LIST_CAP = 500


def is_binary(head: bytes) -> bool:
    return b"\x00" in head[:SNIFF]


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.1f} {unit}"


def _preview_paths(tool: str, rp: ResolvedPath, ws: Path, **extra: object) -> Preview:
    return Preview(summary=f"{tool} {rp.shown(ws)}", paths=[rp.path], outside=rp.outside,
                   sensitive=rp.sensitive, protected=rp.protected, **extra)  # type: ignore[arg-type]


# ---------------------------------------------------------------- read_file


class ReadFileArgs(ToolArgs):
    path: Annotated[str, Meta(
        description="File to read, relative to the workspace (or absolute).")]
    offset: Annotated[int, Meta(
        ge=1, description="First line to show (1-based). Default 1.")] | None = None
    limit: Annotated[int, Meta(
        ge=1, description=f"Number of lines to show. Default {DEFAULT_LIMIT}.")] | None = None


class _Reader:
    """Streams numbered lines out of an open file with bounded memory."""

    def __init__(self, f: BufferedReader, endless: bool) -> None:
        self.f, self.endless, self.total = f, endless, 0

    def line(self) -> tuple[bytes, int] | None:
        """The next line (at most LINE_CAP bytes) and how many bytes were cut."""
        chunk = self._read(LINE_CAP)
        if not chunk:
            return None
        cut = 0
        while not chunk.endswith(b"\n") and len(chunk) + cut >= LINE_CAP:
            rest = self._read(65536)
            if not rest:
                break
            cut += len(rest)
            if rest.endswith(b"\n"):
                break
        return chunk.rstrip(b"\n").rstrip(b"\r"), cut

    def _read(self, n: int) -> bytes:
        if self.endless and self.total >= ENDLESS_CAP:
            return b""
        data = self.f.readline(n)
        self.total += len(data)
        return data


def read_numbered(path: Path, shown: str, offset: int, limit: int) -> str:
    with open_regular(path, shown) as f:
        endless = os.fstat(f.fileno()).st_size == 0
        if is_binary(f.read(SNIFF)):
            raise ToolFailed(f"{shown} looks like a binary file (it contains NUL bytes); "
                             "not shown. Use run_command with a tool such as `file` or `xxd`.")
        f.seek(0)
        skipped, line_start = skip_lines(f, offset - 1, endless)
        if skipped < offset - 1:  # the end came first
            partial = int(f.tell() > line_start)  # a last line without a newline
            if skipped + partial == 0:
                return f"({shown} is empty)"
            if skipped + partial < offset:
                return f"offset {offset} is past the end of {shown} ({skipped + partial} lines)"
            f.seek(line_start)
        return _numbered_slice(_Reader(f, endless), shown, offset, limit)


def skip_lines(f: BufferedReader, count: int, endless: bool) -> tuple[int, int]:
    """Skip ``count`` lines in 1 MiB blocks (memchr speed, constant memory).

    Returns the lines skipped and where the line after the last newline starts.
    """
    skipped = total = line_start = 0
    while skipped < count:
        start = f.tell()
        block = f.read(1024 * 1024)
        if not block:
            break
        total += len(block)
        found = block.count(b"\n")
        if skipped + found >= count:
            index = -1
            for _ in range(count - skipped):
                index = block.index(b"\n", index + 1)
            f.seek(start + index + 1)
            return count, start + index + 1
        skipped += found
        if found:
            line_start = start + block.rfind(b"\n") + 1
        if endless and total >= ENDLESS_CAP:
            raise ToolFailed(f"offset {count + 1} is beyond the first "
                             f"{ENDLESS_CAP // (1024 * 1024)} MiB of this size-0 file")
    return skipped, line_start


def _numbered_slice(reader: _Reader, shown: str, first: int, limit: int) -> str:
    out: list[str] = []
    used, lineno = 0, first
    while lineno < first + limit:
        item = reader.line()
        if item is None:
            break
        raw, cut = item
        entry = f"{lineno:6}\t{raw.decode('utf-8', 'replace')}"
        if cut:
            entry += f" [... line cut: {cut} more bytes]"
        if used + len(entry) > READ_CAP and out:
            return "\n".join([*out, f"[output capped at {READ_CAP // 1024} KiB: lines {first}-"
                              f"{lineno - 1} shown; call read_file with offset={lineno} "
                              "to continue]"])
        out.append(entry)
        used += len(entry) + 1
        lineno += 1
    if not out:
        if first == 1:
            return f"({shown} is empty)"
        return f"offset {first} is past the end of {shown} ({first - 1} lines)"
    if reader.endless and reader.total >= ENDLESS_CAP:
        out.append(f"[stopped after {ENDLESS_CAP // (1024 * 1024)} MiB: this file reports size 0 "
                   f"and may be endless; call read_file with offset={lineno} to continue]")
    elif lineno == first + limit and reader.f.peek(1):
        out.append(f"[lines {first}-{lineno - 1} shown; more follow: call read_file with "
                   f"offset={lineno} to continue]")
    return "\n".join(out)


class ReadFile(Tool[ReadFileArgs]):
    name = "read_file"
    kind = "read"
    path_arg = "path"
    description = (
        "Read a text file. Returns numbered lines (`cat -n` style: line number, tab, text). "
        f"At most {DEFAULT_LIMIT} lines or {READ_CAP // 1024} KiB per call; use `offset` and "
        "`limit` to page through large files (a note at the end says which offset to use next). "
        "Binary files, FIFOs and devices are refused. An image in the workspace (png, jpeg, "
        "gif, webp) is returned as an image, for a model that takes images."
    )
    Args = ReadFileArgs
    read_only = True

    def preview(self, args: ReadFileArgs, ctx: ToolContext) -> Preview:
        ws = real_workspace(ctx.workspace)
        return _preview_paths(self.name, resolve(args.path, ws), ws)

    async def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        rp = resolve(args.path, ctx.workspace)
        shown = rp.shown(real_workspace(ctx.workspace))
        if rp.path.suffix.lower() in IMAGE_SUFFIXES and is_inside(
                rp.path, real_workspace(ctx.workspace)):
            image = await asyncio.to_thread(read_image, rp.path, shown)
            if image is not None:
                return image
        text = await asyncio.to_thread(read_numbered, rp.path, shown, args.offset or 1,
                                       args.limit or DEFAULT_LIMIT)
        return ToolResult(text, metadata={"path": str(rp.path)})


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def read_image(path: Path, shown: str) -> ToolResult | None:
    """The image at ``path`` for the model (``metadata["images"]``: the loop sends
    it after the results); None when it is not one we send (read as text then)."""
    from swebash_py.errors import ImageError
    from swebash_py.images import MAX_INPUT_BYTES, from_data, sniff

    capped = read_capped(path, shown, MAX_INPUT_BYTES)
    if capped.cut:  # too large to send: read as text (refused as binary) like any file
        return None
    data = capped.data
    try:
        block = from_data(data, shown)
    except ImageError as exc:
        if sniff(data) is None:  # not an image after all: read as text (or refused)
            return None
        return ToolResult(str(exc), is_error=True)  # too large: say why (and the extra)
    return ToolResult(f"[image {shown}: {block.media_type}, {len(data):,} bytes]",
                      metadata={"path": str(path), "images": [block]})


# ----------------------------------------------------------- list_directory


class ListDirectoryArgs(ToolArgs):
    path: Annotated[str, Meta(
        description="Directory to list, relative to the workspace. Default '.'.")] = "."


def _describe_entry(entry: os.DirEntry[str]) -> str:
    try:
        if entry.is_symlink():
            return f"{entry.name}@ -> {os.readlink(entry.path)}"
        st = entry.stat(follow_symlinks=False)
    except OSError as exc:
        return f"{entry.name}  (unreadable: {exc.strerror})"
    if stat.S_ISDIR(st.st_mode):
        return f"{entry.name}/"
    if stat.S_ISREG(st.st_mode):
        return f"{entry.name}  ({human_size(st.st_size)})"
    return f"{entry.name}  ({file_kind(st.st_mode)})"


def list_dir(path: Path, shown: str) -> str:
    try:
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
    except FileNotFoundError as exc:
        raise ToolFailed(f"{shown}: no such directory") from exc
    except NotADirectoryError as exc:
        raise ToolFailed(f"{shown} is not a directory; use read_file") from exc
    except OSError as exc:
        raise ToolFailed(f"{shown}: cannot list: {exc.strerror}") from exc
    if not entries:
        return f"{shown}/ is empty"
    lines = [f"{shown}/ ({len(entries)} entries; dirs end in /, symlinks show @ -> target)"]
    lines += [_describe_entry(e) for e in entries[:LIST_CAP]]
    if len(entries) > LIST_CAP:
        lines.append(f"[... {len(entries) - LIST_CAP} more entries not shown ({LIST_CAP} listed); "
                     "use search_files with a glob, or run_command, to narrow down]")
    return "\n".join(lines)


class ListDirectory(Tool[ListDirectoryArgs]):
    name = "list_directory"
    kind = "read"
    path_arg = "path"
    description = (
        "List a directory, sorted by name: subdirectories end in `/`, symlinks show "
        f"`name@ -> target`, files show their size. At most {LIST_CAP} entries."
    )
    Args = ListDirectoryArgs
    read_only = True

    def preview(self, args: ListDirectoryArgs, ctx: ToolContext) -> Preview:
        ws = real_workspace(ctx.workspace)
        return _preview_paths(self.name, resolve(args.path, ws), ws)

    async def run(self, args: ListDirectoryArgs, ctx: ToolContext) -> ToolResult:
        rp = resolve(args.path, ctx.workspace)
        text = await asyncio.to_thread(list_dir, rp.path, rp.shown(real_workspace(ctx.workspace)))
        return ToolResult(text, metadata={"path": str(rp.path)})


# ------------------------------------------------------------- search_files


class SearchFilesArgs(ToolArgs):
    pattern: Annotated[str, Meta(min_length=1, description=(
        "Regular expression (Rust/ripgrep syntax, as Python's re on the common subset); "
        "case-sensitive: start it with (?i) to ignore case."))]
    path: Annotated[str, Meta(
        description="Directory (or file) to search, relative to the workspace.")] = "."
    glob: Annotated[str, Meta(
        description="Only search files matching this glob, e.g. '*.py'.")] | None = None


class SearchFiles(Tool[SearchFilesArgs]):
    name = "search_files"
    kind = "read"
    path_arg = "path"
    description = (
        "Search file contents with a regular expression (recursively under `path`), honouring "
        ".gitignore and skipping binary files, .git, node_modules and .venv. Returns "
        "`file:line: text` for each match, at most 200 matches; long lines are cut."
    )
    Args = SearchFilesArgs
    read_only = True

    def preview(self, args: SearchFilesArgs, ctx: ToolContext) -> Preview:
        rp = resolve(args.path, ctx.workspace)
        return _preview_paths(self.name, rp, real_workspace(ctx.workspace),
                              detail=args.pattern, detail_kind="text")

    async def run(self, args: SearchFilesArgs, ctx: ToolContext) -> ToolResult:
        rp = resolve(args.path, ctx.workspace)
        return await search(args.pattern, rp.path, args.glob, real_workspace(ctx.workspace))
