"""Writing tools: write_file and edit_file.

Both are atomic (a temp file in the same directory, fsync, ``os.replace``; the
old file's mode kept), create missing parent directories, refuse our own
config and data (``protected``), and return a unified diff in
``ToolResult.display`` (the same diff the approval question shows). Text is
decoded with ``surrogateescape`` so bytes that are not UTF-8 survive an edit.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Annotated

from msgspec import Meta

from swebash_py.checkpoints.model import (
    Checkpointer,
    FileChange,
    FileState,
    missing_parents,
    new_file_mode,
    record_folders,
)
from swebash_py.errors import ToolFailed
from swebash_py.fs.workspace import ResolvedPath, real_workspace, resolve
from swebash_py.fs.writer import make_dirs_beneath, write_beneath
from swebash_py.text.diffs import unified_diff
from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Preview, Tool, ToolContext, ToolResult
from swebash_py.tools.editplan import EditPlan, plan_edit

MAX_EDIT_BYTES = 50 * 1024 * 1024


def read_text(path: Path, shown: str) -> str | None:
    """The file's text (surrogateescape), ``None`` when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailed(f"{shown} is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise ToolFailed(f"{shown} is not a regular file; refusing to write it")
    if st.st_size > MAX_EDIT_BYTES:
        raise ToolFailed(f"{shown} is too large to edit ({st.st_size} bytes)")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise ToolFailed(f"{shown} looks like a binary file; refusing to edit it")
    return data.decode("utf-8", "surrogateescape")


def checkpointed_write(checkpoints: Checkpointer | None, tool: str, path: Path,
                       text: str, roots: tuple[Path, ...] = ()) -> None:
    """The one writer's ``write_beneath`` (walked from the workspace, ``roots``),
    with the file's state before and after recorded first (so even a crash
    between the two leaves what undo needs)."""
    data = text.encode("utf-8", "surrogateescape")
    change_id = None
    made = missing_parents(path)
    if made:
        make_dirs_beneath(path.parent, roots)  # never through a swapped-in symlink
    if checkpoints is not None:
        before = FileState.of(path)
        after = FileState(data, before.mode if before.exists else new_file_mode())
        change_id = checkpoints.record(FileChange(str(path), tool, before, after))
        record_folders(checkpoints, tool, made)
    try:
        write_beneath(path, data, new_file_mode(), roots)
    except BaseException:
        if checkpoints is not None and change_id is not None:
            checkpoints.forget(change_id)
        raise


async def _write(ctx: ToolContext, tool: str, path: Path, text: str, shown: str) -> None:
    try:
        await asyncio.to_thread(checkpointed_write, ctx.checkpoints, tool, path, text,
                                (real_workspace(ctx.workspace),))
    except OSError as exc:
        raise ToolFailed(f"could not write {shown}: {exc.strerror or exc}; "
                         "the file is unchanged") from exc


def _check_writable(rp: ResolvedPath, shown: str) -> None:
    if rp.protected:
        raise ToolFailed(f"{shown} is swebash's own configuration or data; tools may not write it")


def _preview(tool: str, rp: ResolvedPath, ws: Path, detail: str, kind: str) -> Preview:
    return Preview(summary=f"{tool} {rp.shown(ws)}", detail=detail, detail_kind=kind,
                   paths=[rp.path], outside=rp.outside, sensitive=rp.sensitive,
                   protected=rp.protected)


def _replacing_unreadable(tool: str, rp: ResolvedPath, ws: Path, content: str,
                          exc: Exception) -> Preview:
    """The question for a write over a file that is there but cannot be read:
    the new content, saying what it replaces; it asks in every mode (nothing
    of the old file can be shown, and undo may not be able to keep it)."""
    if isinstance(exc, PermissionError):
        why = "permission denied"
    else:
        why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
    preview = _preview(tool, rp, ws, content, "replaced")
    preview.must_ask = f"replaces a file it cannot read ({why}); its content is not shown"
    preview.warnings.append(preview.must_ask)
    return preview


def _summary(verb: str, shown: str, new: str, diff: str) -> str:
    lines = diff.splitlines()[2:]
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    return f"{verb} {shown} ({len(new.splitlines())} lines; +{added} -{removed})"


# --------------------------------------------------------------- write_file


class WriteFileArgs(ToolArgs):
    path: Annotated[str, Meta(description=(
        "File to write, relative to the workspace. Parent directories are created."))]
    content: Annotated[str, Meta(description="The complete new content of the file.")]


class WriteFile(Tool[WriteFileArgs]):
    name = "write_file"
    kind = "edit"
    path_arg = "path"
    shows = "the new file"
    description = ("Create a file or replace its whole content (atomically). Prefer edit_file "
                   "for changing part of an existing file. Returns a short summary.")
    Args = WriteFileArgs

    def preview(self, args: WriteFileArgs, ctx: ToolContext) -> Preview:
        ws = real_workspace(ctx.workspace)
        rp = resolve(args.path, ws, for_write=True)
        shown = rp.shown(ws)
        try:
            old = read_text(rp.path, shown)
        except (ToolFailed, OSError) as exc:
            if not os.path.lexists(rp.path):
                old = None  # gone meanwhile: a new file after all
            else:  # never shown as a new file: something is there, unseen
                return _replacing_unreadable(self.name, rp, ws, args.content, exc)
        if old is None:
            return _preview(self.name, rp, ws, args.content, "file")
        return _preview(self.name, rp, ws, unified_diff(old, args.content, shown), "diff")

    async def run(self, args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
        ws = real_workspace(ctx.workspace)
        rp = resolve(args.path, ws, for_write=True)
        shown = rp.shown(ws)
        _check_writable(rp, shown)
        try:
            old = await asyncio.to_thread(read_text, rp.path, shown)
        except PermissionError:  # the question said so; the checkpoint decides whether it can
            await _write(ctx, self.name, rp.path, args.content, shown)
            return ToolResult(f"Replaced {shown}, which could not be read "
                              f"({len(args.content.splitlines())} lines; no diff)",
                              metadata={"path": str(rp.path), "created": False})
        await _write(ctx, self.name, rp.path, args.content, shown)
        diff = unified_diff(old, args.content, shown)
        verb = "Created" if old is None else "Updated"
        return ToolResult(_summary(verb, shown, args.content, diff), display=diff,
                          metadata={"path": str(rp.path), "created": old is None})


# ---------------------------------------------------------------- edit_file


class EditFileArgs(ToolArgs):
    path: Annotated[str, Meta(description="File to edit, relative to the workspace.")]
    old_text: Annotated[str, Meta(description=(
        "Exact text to replace, including whitespace and indentation, without read_file's "
        "line numbers; it must occur exactly once in the file unless replace_all."))]
    new_text: Annotated[str, Meta(description="Text to put in its place.")]
    replace_all: Annotated[bool, Meta(
        description="Replace every occurrence (e.g. a rename).")] = False


class EditFile(Tool[EditFileArgs]):
    name = "edit_file"
    kind = "edit"
    path_arg = "path"
    shows = "a diff"
    description = ("Replace one exact occurrence of `old_text` with `new_text` in a file "
                   "(atomically), or every occurrence with `replace_all`. `old_text` must match "
                   "exactly once, whitespace included; otherwise nothing is changed and the "
                   "error says why (and where it matched).")
    Args = EditFileArgs

    def _plan(self, args: EditFileArgs,
              ctx: ToolContext) -> tuple[ResolvedPath, str, str, EditPlan]:
        ws = real_workspace(ctx.workspace)
        rp = resolve(args.path, ws, for_write=True)
        shown = rp.shown(ws)
        _check_writable(rp, shown)
        old = read_text(rp.path, shown)
        if old is None:
            raise ToolFailed(f"{shown}: no such file (use write_file to create it)")
        return rp, shown, old, plan_edit(old, args.old_text, args.new_text, shown,
                                         args.replace_all)

    def preview(self, args: EditFileArgs, ctx: ToolContext) -> Preview:
        ws = real_workspace(ctx.workspace)
        try:
            rp, shown, old, plan = self._plan(args, ctx)
        except ToolFailed as exc:
            rp = resolve(args.path, ws, for_write=True)
            failing = _preview(self.name, rp, ws, f"(this edit will fail: {exc})", "text")
            if not (failing.outside or failing.sensitive or failing.protected):
                raise  # it would fail: say so at once, asking first helps no one
            return failing  # outside: failing now would tell what the file holds unasked
        return _preview(self.name, rp, ws, unified_diff(old, plan.text, shown), "diff")

    async def run(self, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        rp, shown, old, plan = await asyncio.to_thread(self._plan, args, ctx)
        await _write(ctx, self.name, rp.path, plan.text, shown)
        diff = unified_diff(old, plan.text, shown)
        summary = _summary("Edited", shown, plan.text, diff)
        if plan.replaced > 1:
            summary += f"; replaced {plan.replaced} occurrences"
        if plan.note:
            summary += f"\n{plan.note}"
        return ToolResult(summary, display=diff,
                          metadata={"path": str(rp.path), "replaced": plan.replaced})
