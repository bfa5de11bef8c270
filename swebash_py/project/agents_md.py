"""AGENTS.md: instructions for the model from the user and the project.

Read, in this order, ``<user config dir>/swebash/AGENTS.md`` and then every
``AGENTS.md`` from the git root of the workspace down to the working
directory (the nearest last, so it has the final word). Text for the model,
not settings: it needs no trust. The whole is capped (``CAP_BYTES``) before
reading; what does not fit is cut, with a note saying so. Files are read by the
one reader (``fs.reader``), never asked about: a cloned repository's
``AGENTS.md -> ~/.ssh/id_ed25519`` is skipped with a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from swebash_py.config.paths import git_root
from swebash_py.fs.reader import Unreadable, judge, read_allowed

FILE_NAME = "AGENTS.md"
CAP_BYTES = 32 * 1024


@dataclass
class Instructions:
    """The files read (path and the text used) and whether the cap cut them."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    cut: bool = False
    notes: list[str] = field(default_factory=list)  # files skipped, one line each

    def prompt_text(self) -> str:
        """The section for the system prompt ('' when there is nothing)."""
        if not self.files:
            return ""
        parts = ["Instructions from AGENTS.md files (the user's and this project's; "
                 "later ones are more specific and take precedence):"]
        for path, text in self.files:
            parts.append(f"--- {path}\n{text.strip()}")
        if self.cut:
            parts.append(f"[AGENTS.md text was cut at {CAP_BYTES // 1024} KiB]")
        return "\n\n".join(parts)


def candidate_paths(cwd: Path, user_dir: Path) -> list[Path]:
    """Where AGENTS.md files may be, in prompt order."""
    return [path for path, _root in _sources(cwd, user_dir)]


def _sources(cwd: Path, user_dir: Path) -> list[tuple[Path, Path]]:
    """Each candidate with the folder it (and a symlink's target) must stay in:
    the user's config folder for the user's, the project's root for the others."""
    cwd = cwd.resolve()
    root = git_root(cwd) or cwd
    chain = [cwd, *cwd.parents]
    project = list(reversed(chain[: chain.index(root) + 1]))
    return [(user_dir / FILE_NAME, user_dir), *((d / FILE_NAME, root) for d in project)]


def load_instructions(cwd: Path, user_dir: Path, cap: int = CAP_BYTES) -> Instructions:
    """The AGENTS.md files that exist, capped at ``cap`` bytes in total. Each is
    read by the one reader: one that leads outside its folder, to a secret or to
    anything but a regular file is skipped with a one-line note."""
    found = Instructions()
    budget = cap
    for path, root in _sources(cwd, user_dir):
        if not os.path.lexists(path):
            continue
        try:
            capped = read_allowed(judge(path, root.resolve(), (root,)), str(path), budget)
        except Unreadable as exc:
            if os.path.exists(path):  # a dangling link reads nothing: nothing to say
                found.notes.append(f"AGENTS.md skipped: {exc}")
            continue
        if (text := capped.text()).strip():
            found.files.append((path, text))
            budget -= len(capped.data)
        if capped.cut:  # the budget is spent: nothing after this one fits
            found.cut = True
            break
    return found
