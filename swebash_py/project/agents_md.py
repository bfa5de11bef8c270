"""AGENTS.md: instructions for the model from the user and the project.

Read, in this order, ``<user config dir>/swebash/AGENTS.md`` and then every
``AGENTS.md`` from the git root of the workspace down to the working
directory (the nearest last, so it has the final word). Text for the model,
not settings: it needs no trust. The whole is capped (``CAP_BYTES``); what
does not fit is cut, with a note saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

FILE_NAME = "AGENTS.md"
CAP_BYTES = 32 * 1024


@dataclass
class Instructions:
    """The files read (path and the text used) and whether the cap cut them."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    cut: bool = False

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


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``.git``."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def candidate_paths(cwd: Path, user_dir: Path) -> list[Path]:
    """Where AGENTS.md files may be, in prompt order."""
    cwd = cwd.resolve()
    root = git_root(cwd) or cwd
    chain = [cwd, *cwd.parents]
    project = list(reversed(chain[: chain.index(root) + 1]))
    return [user_dir / FILE_NAME, *(d / FILE_NAME for d in project)]


def load_instructions(cwd: Path, user_dir: Path, cap: int = CAP_BYTES) -> Instructions:
    """The AGENTS.md files that exist, capped at ``cap`` bytes in total."""
    found = Instructions()
    budget = cap
    for path in candidate_paths(cwd, user_dir):
        text = _read(path)
        if text is None or not text.strip():
            continue
        data = text.encode("utf-8")
        if len(data) > budget:
            found.cut = True
            text = data[:budget].decode("utf-8", errors="ignore")
        budget -= len(text.encode("utf-8"))
        if text.strip():
            found.files.append((path, text))
        if found.cut:
            break
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError):
        return None
    except OSError:
        return None
