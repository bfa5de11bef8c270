"""Which calls run as a preview first (the contract's "Preview (Linux)").

A ``run_command`` that would ask, runs approved in ``workspace-write`` and is
not an escalation or a background command, runs as a preview when
``[sandbox] preview`` is on and overlays work here: ``first`` (the preview
replaces the question before the run) or, under ``strict``, ``after`` (the
question stays, the preview follows it). Everything else ("" ) asks as
before. Allow rules, yolo and ``host_allow`` never reach here: they do not ask.

``quiet_reason``: a preview whose only changes are new, plain files that the
workspace's ``.gitignore`` ignores (``__pycache__/``) applies without a question;
a ``.pyc`` among them only when it is the workspace's own source compiled
(``preview.bytecode``: a crafted one would run at the next unsandboxed import).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from swebash_py.sandbox.policy import effective_mode


def preview_mode(pending: Any, approval_mode: str, settings: Any) -> str:
    """``first``, ``after`` or "" (no preview) for a call that would ask."""
    traits = pending.tool.traits()
    if not traits.previews:
        return ""
    args = pending.args.to_dict()
    if traits.escalates(args) or args.get("background"):
        return ""
    section = settings.sandbox
    if not section.preview or effective_mode(section.mode, "write") != "workspace-write":
        return ""
    if unavailable_reason() is not None:
        return ""  # the ordinary question before the run; `ai doctor` says why
    return "after" if approval_mode == "strict" else "first"


def unavailable_reason() -> str | None:
    """Why previews cannot run here at all (None: they can); probed once."""
    import sys

    if not sys.platform.startswith("linux"):
        return "previews need Linux (overlayfs); other systems ask before the run"
    from swebash_py.sandbox import overlay

    found = overlay.support()
    return None if found.ok else found.reason


# previews that apply without a question ---------------------------------------
QUIET_NOTE = "without a question"


def quiet_reason(changes: Any, workspace: Path) -> str | None:
    """The one line saying why ``changes`` apply without a question, or None (ask).

    Only when every change creates a regular, non-executable file (or a folder
    for one) where nothing was, under the workspace, at a path the workspace's
    ``.gitignore`` files ignore (``__pycache__/``, ``build/``), none named like a
    secret (the one list: ``sandbox.secrets.is_sensitive``), and no settings
    change was refused. Any modification, deletion, symlink, executable, special
    bit, hard link, or file the user changed meanwhile asks."""
    workspace = workspace.resolve()
    if not changes or changes.refused:
        return None
    ignores = _IgnoreFiles(workspace)
    rels = [c.rel for c in changes.changes]
    for change in changes.changes:
        if not _quiet(change, workspace):
            return None
        if change.kind == "dir" and any(r.startswith(change.rel + "/") for r in rels):
            continue  # a folder for ignored files (`*.pyc` ignores what is in __pycache__)
        if not ignores.ignored(change.rel, change.kind == "dir"):
            return None
    files = sum(1 for c in changes.changes if c.kind == "file")
    folders = sorted({os.path.dirname(c.rel) or "." for c in changes.changes
                      if c.kind == "file"})
    where = ", ".join(f"{f}/" for f in folders[:3]) + (" …" if len(folders) > 3 else "")
    noun = "file" if files == 1 else "files"
    return f"{QUIET_NOTE}: {files} new .gitignored {noun} in {where}"


def _quiet(change: Any, workspace: Path) -> bool:
    from swebash_py.sandbox.secrets import is_sensitive

    if change.root.resolve() != workspace or change.action != "create" or change.stale:
        return False
    if change.base.kind is not None or change.moved_from or change.mode & 0o7000:
        return False
    if is_sensitive(Path(change.rel)) or is_sensitive(change.path) or _runs_later(change.rel):
        return False
    if change.kind == "dir":
        return True  # a new folder is opaque (``replace``); nothing was there to replace
    return (change.kind == "file" and not change.mode & 0o111 and change.link is None
            and not change.in_place and not change.aliases
            and _plain_or_own_bytecode(change, workspace))


def _plain_or_own_bytecode(change: Any, workspace: Path) -> bool:
    """Bytecode is code the next import runs: only our own source, compiled."""
    from swebash_py.preview import bytecode

    return (not bytecode.is_bytecode(change.rel)
            or bytecode.own_bytecode(change.rel, change.source, workspace))


# ignored, not executable, and still code the next unsandboxed run loads: a
# package folder's contents, Python's start-up hooks
_LOADED_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules"})
_START_UP_HOOKS = frozenset({"sitecustomize.py", "usercustomize.py"})


def _runs_later(rel: str) -> bool:
    parts = rel.split("/")
    return (any(part in _LOADED_FOLDERS for part in parts) or parts[-1].endswith(".pth")
            or parts[-1] in _START_UP_HOOKS or _native_code(parts[-1]))


def _native_code(name: str) -> bool:
    """A shared library: ``import pkg.util`` loads ``util.cpython-311-….so`` before
    ``util.py``, and ``dlopen`` needs no execute bit (nor does ``LD_PRELOAD``)."""
    import importlib.machinery

    return name.endswith((*importlib.machinery.EXTENSION_SUFFIXES, ".so", ".pyd", ".dylib",
                          ".dll")) or ".so." in name


class _IgnoreFiles:
    """The workspace's ``.gitignore`` files (from the git root above it, if any, down
    to each path's folder), read from the real workspace: a ``.gitignore`` the
    command itself wrote is in the overlay, never here."""

    def __init__(self, workspace: Path) -> None:
        from swebash_py.tools.find import GitIgnores

        self._workspace = workspace
        top = GitIgnores()
        for base in _above(workspace):
            top = top.load(str(base))
        self._by_folder: dict[str, Any] = {"": top}

    def ignored(self, rel: str, is_dir: bool) -> bool:
        folder = os.path.dirname(rel)
        return bool(self._for(folder).ignored(str(self._workspace / rel), is_dir))

    def _for(self, folder: str) -> Any:
        if folder not in self._by_folder:
            parent = self._for(os.path.dirname(folder))
            self._by_folder[folder] = parent.load(str(self._workspace / folder))
        return self._by_folder[folder]


def _above(workspace: Path) -> list[Path]:
    """The folders from the git root down to the workspace (the workspace alone
    when it is not in a repository)."""
    chain = [workspace]
    for parent in workspace.parents:
        if (chain[-1] / ".git").exists():
            break
        chain.append(parent)
    else:
        return [workspace]
    return list(reversed(chain))
