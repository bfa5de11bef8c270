"""Custom slash commands: ``NAME.md`` prompt files.

Looked up in ``<user config dir>/swebash/commands/`` and, in a trusted
project, ``.swebash/commands/`` (the project's win over the user's of the
same name). Optional front matter between ``---`` lines may give a
``description:``. ``/NAME args`` sends the body with ``$ARGUMENTS`` replaced
by all the arguments and ``$1``..``$9`` by each word (shell-like splitting).
Files are read by the one reader (``fs.reader``): capped before reading, and a
command that leads to a secret or out of its folder is refused with a warning.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from swebash_py.fs.reader import Unreadable, judge, read_allowed

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_POSITIONAL = re.compile(r"\$([1-9])")
MAX_BYTES = 64 * 1024


@dataclass(frozen=True)
class CustomCommand:
    name: str  # without the slash
    description: str
    body: str
    path: Path
    refused: str = ""  # why the one reader would not read it (then the body is empty)

    def expand(self, arguments: str) -> str:
        """The prompt to send for ``/NAME arguments``."""
        try:
            words = shlex.split(arguments)
        except ValueError:
            words = arguments.split()
        text = self.body.replace("$ARGUMENTS", arguments)
        return _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1]
                               if int(m.group(1)) <= len(words) else "", text)


def parse_command(path: Path, text: str) -> CustomCommand:
    """A command from its file's text (front matter optional)."""
    description, body = "", text
    lines = text.splitlines(keepends=True)
    if lines and lines[0].strip() == "---":
        for i, line in enumerate(lines[1:], start=1):
            if line.strip() == "---":
                for meta in lines[1:i]:
                    key, _, value = meta.partition(":")
                    if key.strip().lower() == "description":
                        description = value.strip().strip("\"'")
                body = "".join(lines[i + 1:])
                break
    if not description:
        first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
        description = first.lstrip("# ")[:60]
    return CustomCommand(path.stem, description, body.strip("\n"), path)


def load_commands(directories: list[Path], roots: list[Path] | None = None
                  ) -> dict[str, CustomCommand]:
    """Commands by name from ``directories`` (later directories win). Each file is
    read by the one reader, and must stay (its symlink's target too) inside the
    matching entry of ``roots`` (default: its directory). One it refuses (a
    secret, somewhere else, not a regular file) is kept with ``refused`` set and
    no body, for ``split_builtin_clashes`` to drop with a warning."""
    found: dict[str, CustomCommand] = {}
    for directory, root in zip(directories, roots or directories, strict=True):
        try:
            files = sorted(directory.glob("*.md"))
        except OSError:
            continue
        for path in files:
            if _NAME.match(path.stem) and os.path.exists(path):
                found[path.stem] = _read_command(path, root)
    return found


def _read_command(path: Path, root: Path) -> CustomCommand:
    try:
        capped = read_allowed(judge(path, root.resolve(), (root,)), str(path), MAX_BYTES)
    except Unreadable as exc:
        return CustomCommand(path.stem, "", "", path, refused=str(exc))
    return parse_command(path, capped.text())


def split_builtin_clashes(commands: dict[str, CustomCommand], builtins: set[str]
                          ) -> tuple[dict[str, CustomCommand], list[str]]:
    """Drop commands named like a built-in (``/help``...) and those the reader
    refused; warnings for each."""
    kept, warnings = {}, []
    for name, command in commands.items():
        if command.refused:
            warnings.append(f"custom command /{name} is ignored: {command.refused}")
        elif "/" + name in builtins:
            warnings.append(f"custom command {command.path} is ignored: /{name} is built in")
        else:
            kept[name] = command
    return kept, warnings
