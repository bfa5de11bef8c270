"""Settings are never the sandbox's to write: the part no mount can hold.

A project's ``.swebash/`` (hooks, MCP servers, allow rules) and our own config
are read and run on the host by the next ``ai``. Inside the sandbox:

- every ``.swebash`` that exists at any depth of the workspace and
  ``writable_roots`` (found by ``pathindex``, the same cached walk as the
  secrets) is bound read-only onto itself: it cannot be written, renamed,
  removed or replaced; our own config and data are masked read-only;
- one that does not exist yet cannot be held by a mount: bwrap would have to
  create the mount point on the host (an empty ``.swebash`` left in the user's
  tree, at one place, racing other runs), and no mount can cover every folder
  at any depth. So a ``workspace-write`` run is swept after it ends (by
  contract all its processes are dead then; a background command when it ends,
  or when the session stops it): any ``.swebash`` entry, or our config file,
  that was not there before (by device, inode, type and symlink target, so a
  replaced one counts as new and a folder moved with its settings does not) is
  removed, and the result says so in one line;
- previews need no sweep: their writes land in the overlay, and the change
  set drops everything under a ``.swebash`` (``preview.changes``).

Removal (``fs.writer.remove_if_same``) walks from the writable root by directory
descriptors and follows no symlink (``shutil.rmtree`` with ``dir_fd`` is the
symlink-safe variant): a background command still running cannot turn the sweep
against another folder.
What this does not cover: ``ai`` killed by SIGKILL between a run's end and its
sweep; trust bound to the settings' content (``project.trust``) asks again then.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from swebash_py.sandbox import pathindex
from swebash_py.sandbox.policy import SandboxPolicy

Identity = tuple[int, int, int, str]


def identity(path: Path) -> Identity | None:
    """Device, inode, file type and symlink target (None: absent)."""
    try:
        st = os.lstat(path)
        target = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""
    except OSError:
        return None
    return (st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode), target)


def snapshot(paths: list[Path]) -> frozenset[Identity]:
    return frozenset(i for i in map(identity, paths) if i is not None)


def watched(policy: SandboxPolicy) -> list[Path]:
    """The settings a run under ``policy`` could add: every ``.swebash`` entry of
    its writable roots, and our own config file when it lies inside one."""
    roots = [r for r in policy.writable if r.is_dir()]
    found = pathindex.find(roots).settings
    return [*found, *(p for p in policy.guarded if _beneath(p, roots))]


# removes ``root/rel`` through the one writer if it is still the entry judged
# (``fs.writer.remove_if_same``, passed in by the tools that sweep: fs sits above)
Remove = Callable[[Path, Path, Identity], bool]


def sweep(policy: SandboxPolicy, remove: Remove) -> list[Path]:
    """Remove (with ``remove``) the settings the finished run planted; the paths removed."""
    if policy.mode != "workspace-write":
        return []
    removed = []
    roots = [r for r in policy.writable if r.is_dir()]
    for path in watched(policy):
        ident = identity(path)
        if ident is None or ident in policy.settings_seen:
            continue
        root = next((r for r in roots if _beneath(path, [r])), None)
        if root is not None and remove(root, path.relative_to(root), ident):
            removed.append(path)
    return removed


def sweep_note(removed: list[Path], workspace: Path) -> str:
    """The one line a result carries when the sweep removed something."""
    names = ", ".join(_shown(p, workspace) for p in removed[:5])
    more = f" and {len(removed) - 5} more" if len(removed) > 5 else ""
    return (f"[the sandbox removed settings this command created: {names}{more} "
            "(settings are never the sandbox's to write)]")


def _shown(path: Path, workspace: Path) -> str:
    return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)


def _beneath(path: Path, roots: list[Path]) -> bool:
    return any(path != r and path.is_relative_to(r) for r in roots)
