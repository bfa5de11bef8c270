"""Workspace path policy: where a path really points and what that means.

A path given by the model is resolved relative to the workspace with
realpath semantics (``..``, symlinks, dangling symlinks all followed); the
resolved path is the one shown and used. It is *outside* when it does not lie
under the workspace (component-wise: ``/w2`` is not under ``/w``), and for a
write also when it is a regular file with other hard links. It is *sensitive*
when it looks like a secret (ssh/aws/gpg dirs, ``.netrc``, ``.env`` files,
private keys), or for a write when it is a repository's or project's control
file (``runs_code_later``), and *protected* when it is our own config file or anything under
our data directory: no tool may ever write those.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from swebash_py.config.paths import config_path, data_dir
from swebash_py.errors import ToolFailed
from swebash_py.sandbox.secrets import is_secret_entry, is_sensitive


@dataclass(frozen=True)
class ResolvedPath:
    """A model-supplied path after resolution, with its policy flags."""

    raw: str
    path: Path
    outside: bool
    sensitive: bool
    protected: bool

    def shown(self, workspace: Path) -> str:
        """The path relative to the workspace when inside, else absolute."""
        if not self.outside and self.path.is_relative_to(workspace):
            rel = self.path.relative_to(workspace)
            return str(rel) if str(rel) != "." else "."
        return str(self.path)


def real_workspace(workspace: Path) -> Path:
    """The workspace itself, fully resolved."""
    return Path(os.path.realpath(os.path.expanduser(str(workspace))))


def resolve(raw: str, workspace: Path, *, for_write: bool = False) -> ResolvedPath:
    """Resolve ``raw`` against ``workspace``; raise ``ToolFailed`` on a symlink loop."""
    if "\x00" in raw:
        raise ToolFailed("path contains a NUL byte")
    ws = real_workspace(workspace)
    joined = os.path.join(ws, os.path.expanduser(raw or "."))
    path = Path(os.path.realpath(joined))
    _check_loop(raw, path)
    outside = not is_inside(path, ws)
    if for_write and _has_other_links(path):
        outside = True
    sensitive = is_sensitive(Path(joined)) or is_sensitive(path) or (
        for_write and (runs_code_later(Path(joined)) or runs_code_later(path)))
    return ResolvedPath(raw, path, outside, sensitive, is_protected(path))


CONTROL_DIRS = frozenset({".git", ".swebash"})


def runs_code_later(path: Path) -> bool:
    """A repository's control files (``.git/config``, ``.git/hooks``, a ``.git``
    file pointing elsewhere) or a project's ``.swebash/`` settings: writing them
    can make the user's own next ``git status`` or ``ai`` run a command, so a
    write always asks (even under auto-edit) and is never remembered."""
    return any(part in CONTROL_DIRS for part in path.parts)


def shown_path(path: Path, workspace: Path) -> str:
    """Relative to the workspace when inside it, else absolute."""
    return str(path.relative_to(workspace)) if is_inside(path, workspace) else str(path)


def is_inside(path: Path, workspace: Path) -> bool:
    """Component-wise containment (``/w2`` is not inside ``/w``)."""
    return path == workspace or path.is_relative_to(workspace)


def _check_loop(raw: str, path: Path) -> None:
    # realpath (non-strict) stops at a loop and returns a path that still
    # contains a symlink; stat then fails with ELOOP.
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ToolFailed(f"{raw}: too many levels of symbolic links (a symlink loop)") from exc
        return
    if os.path.islink(path):
        raise ToolFailed(f"{raw}: too many levels of symbolic links (a symlink loop)")


def _has_other_links(path: Path) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def protected_roots() -> tuple[Path, Path]:
    """Our config file and our data directory, resolved."""
    return (Path(os.path.realpath(config_path())), Path(os.path.realpath(data_dir())))


def is_protected(path: Path) -> bool:
    """Whether ``path`` is our config file or lies under our data directory."""
    config, data = protected_roots()
    if path == config or is_inside(path, data):
        return True
    try:
        return config.exists() and path.exists() and os.path.samefile(path, config)
    except OSError:
        return False


# the words of a command line, split where a path cannot continue
_WORD_BREAK = re.compile(r"[\s'\"=:;|&()<>`]+")


def mentions_secret(command: str) -> bool:
    """A heuristic for commands: does the text name a secrets path? Each word is
    judged by the one secrets list (``is_sensitive``), as a path would be."""
    return any(is_sensitive(Path(word)) for word in _WORD_BREAK.split(command) if word)


def mentions_protected(command: str) -> bool:
    """A heuristic for commands: does the text name our config or data paths
    (also as ``~/...`` or ``$HOME/...``)?"""
    home = os.path.expanduser("~").rstrip("/")
    for root in map(str, protected_roots()):
        forms = [root]
        if home and root.startswith(home + "/"):
            tail = root[len(home):]
            forms += ["~" + tail, "$HOME" + tail, "${HOME}" + tail]
        if any(form in command for form in forms):
            return True
    return False


class SecretsFilter:
    """The secrets policy for every path a file tool reads or returns below
    ``root``: secrets and our own files are skipped, by name and after
    resolving symlinks (unless ``root`` itself is one: then the user was asked)."""

    def __init__(self, root: Path) -> None:
        self.config, self.data = protected_roots()
        self.open = is_sensitive(root) or is_protected(root)
        # the same roots as strings, for a walk's entries (one compare each)
        self._config_s, self._data_s = str(self.config), str(self.data)
        self._data_prefix = self._data_s.rstrip(os.sep) + os.sep
        try:
            st = os.stat(self.config)
            self._config_id: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            self._config_id = None

    def hidden(self, path: str | Path) -> bool:
        if self.open:
            return False
        raw = Path(path)
        real = Path(os.path.realpath(raw))
        return any(is_sensitive(p) or p == self.config or is_inside(p, self.data)
                   for p in (raw, real))

    def hidden_entry(self, folder: str, entry: os.DirEntry[str]) -> bool:
        """``hidden(entry.path)`` for an entry met by a walk that starts at ``root``,
        enters only real directories (symlinks are not followed) and never what it
        hides, ``folder`` being the entry's directory as the walk reached it: the
        name against the one list (``is_secret_entry``, the folder's own parts
        having passed already), the path against our config and data by string,
        and only a symlink resolved (its target may be a secret or ours)."""
        if self.open:
            return False
        if is_secret_entry(folder, entry.name):
            return True
        path = entry.path
        if path == self._config_s or path == self._data_s or path.startswith(self._data_prefix):
            return True
        return entry.is_symlink() and self.hidden(path)

    def is_config(self, st: os.stat_result) -> bool:
        """Whether ``st`` (a listed file's own stat) is our config file under
        another name (a hard link: ``hidden`` compares paths)."""
        return not self.open and self._config_id == (st.st_dev, st.st_ino)
