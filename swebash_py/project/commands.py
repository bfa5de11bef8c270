"""Custom slash commands: ``NAME.md`` prompt files.

Looked up in ``<user config dir>/swebash/commands/`` and, in a trusted
project, ``.swebash/commands/`` (the project's win over the user's of the
same name). Optional front matter between ``---`` lines may give a
``description:``. ``/NAME args`` sends the body with ``$ARGUMENTS`` replaced
by all the arguments and ``$1``..``$9`` by each word (shell-like splitting).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_POSITIONAL = re.compile(r"\$([1-9])")
MAX_BYTES = 64 * 1024


@dataclass(frozen=True)
class CustomCommand:
    name: str  # without the slash
    description: str
    body: str
    path: Path

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


def load_commands(directories: list[Path]) -> dict[str, CustomCommand]:
    """Commands by name from ``directories`` (later directories win)."""
    found: dict[str, CustomCommand] = {}
    for directory in directories:
        try:
            files = sorted(directory.glob("*.md"))
        except OSError:
            continue
        for path in files:
            if not _NAME.match(path.stem) or not path.is_file():
                continue
            try:
                text = path.read_bytes()[:MAX_BYTES].decode("utf-8", errors="replace")
            except OSError:
                continue
            found[path.stem] = parse_command(path, text)
    return found


def split_builtin_clashes(commands: dict[str, CustomCommand], builtins: set[str]
                          ) -> tuple[dict[str, CustomCommand], list[str]]:
    """Drop commands named like a built-in (``/help``...); warnings for each."""
    kept, warnings = {}, []
    for name, command in commands.items():
        if "/" + name in builtins:
            warnings.append(f"custom command {command.path} is ignored: /{name} is built in")
        else:
            kept[name] = command
    return kept, warnings
