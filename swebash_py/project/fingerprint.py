"""What a project's ``.swebash/`` holds, so trust binds to it, not to the path.

``take`` digests every entry under the folder's ``.swebash/`` (files by their
content, a symlink by its target and what it leads to) and keeps the lines the
trust question shows (servers, rules, hooks, commands: ``describe_contents``).
The trust store keeps the fingerprint with the answer; when the folder's
settings later differ (a hook added, a server changed, settings planted where
there were none), ``differences`` says what changed and trust is asked again.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swebash_py.config.paths import PROJECT_DIR

_CHUNK = 1 << 20
_MAX_CHUNKS = 64  # 64 MiB hashed at most per file


@dataclass(frozen=True)
class Fingerprint:
    """``files``: relative path → digest of what is there; ``lines``: what it says."""

    files: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    @property
    def digest(self) -> str:
        import hashlib  # only with a .swebash/ to look at (most runs have none)

        whole = hashlib.sha256()
        for name, value in sorted(self.files.items()):
            whole.update(f"{name}\0{value}\0".encode("utf-8", "surrogateescape"))
        return whole.hexdigest()

    def to_data(self) -> dict[str, Any]:
        return {"digest": self.digest, "files": dict(self.files), "lines": list(self.lines)}

    @classmethod
    def from_data(cls, data: Any) -> Fingerprint | None:
        """The stored form back; None when it is not one (an answer kept before
        trust bound to content: it matches nothing)."""
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            return None
        files = {str(k): str(v) for k, v in data["files"].items()}
        lines = [str(x) for x in data.get("lines") or [] if isinstance(x, str)]
        return cls(files, lines)


def take(root: Path, *, lines: bool = True) -> Fingerprint:
    """The fingerprint of ``root/.swebash`` now (empty when there is none);
    ``lines=False``: the files alone (for a comparison), not what they say."""
    base = os.path.join(root, PROJECT_DIR)
    files: dict[str, str] = {}
    try:
        mode = os.lstat(base).st_mode
    except OSError:
        return Fingerprint({}, [])
    if not stat.S_ISDIR(mode):
        files["."] = _entry(base)  # a linked .swebash/ (or something else): its own entry
    if os.path.isdir(base):
        _walk(base, "", files)
    # folders alone hold no settings (an empty .swebash/ is none): only what is in them
    return Fingerprint(files, describe_contents(root) if lines and files else [])


def _walk(folder: str, rel: str, files: dict[str, str]) -> None:
    """Every entry below ``folder`` but plain folders, by relative path; never
    follows a linked folder down (its entry says what it holds)."""
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, f"{rel}{entry.name}/", files)
        else:
            files[rel + entry.name] = _entry(entry.path)


def _entry(path: str) -> str:
    """A file's content digest; a link's target and what it leads to; a linked
    folder's files; anything else by its kind (never opened: a FIFO, a device)."""
    import hashlib  # only with a .swebash/ to look at (most runs have none)

    prefix = ""
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            prefix = f"link:{os.readlink(path)}:"
            mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):  # a linked folder (``commands -> elsewhere``): what it holds
            with os.scandir(path) as found:
                inside = sorted((e.name, e.path) for e in found if not e.is_dir())
            listing = "\0".join(f"{name}={_entry(full)}" for name, full in inside)
            return prefix + "dir:" + hashlib.sha256(
                listing.encode("utf-8", "surrogateescape")).hexdigest()
        if not stat.S_ISREG(mode):
            return prefix + "special"
        # non-blocking, and judged again once open: a FIFO swapped in meanwhile
        # must not hang the start (hashed only, never shown to anyone)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return prefix + "special"
            digest = hashlib.sha256()
            for _ in range(_MAX_CHUNKS):
                if not (chunk := os.read(fd, _CHUNK)):
                    break
                digest.update(chunk)
            else:  # past what any reader of settings reads: its size and time stand in
                digest.update(f"\0{info.st_size}\0{info.st_mtime_ns}".encode())
        finally:
            os.close(fd)
        return prefix + digest.hexdigest()
    except OSError as exc:  # gone or unreadable now: a value of its own, never "unchanged"
        return prefix + f"error:{exc.errno}"


def differences(before: Fingerprint | None, now: Fingerprint) -> list[str]:
    """What changed, for the question: the settings' lines added and removed,
    then the files added, removed or changed."""
    from swebash_py.text.sanitize import one_line  # names and lines are the folder's

    if before is None:
        return ["(trusted before swebash remembered what its settings held)",
                *(f"  {line}" for line in now.lines)]
    out = [f"+ {line}" for line in now.lines if line not in before.lines]
    out += [f"- {line}" for line in before.lines if line not in now.lines]
    for name in sorted(set(before.files) | set(now.files)):
        shown = one_line(f"{PROJECT_DIR}/" if name == "." else f"{PROJECT_DIR}/{name}", 160)
        if name not in before.files:
            out.append(f"added: {shown}")
        elif name not in now.files:
            out.append(f"removed: {shown}")
        elif before.files[name] != now.files[name]:
            out.append(f"changed: {shown}")
    return out


def describe_contents(root: Path) -> list[str]:
    """What a project's ``.swebash/`` holds, for the trust question."""
    from swebash_py.config.project import config_file, read_project_config

    lines: list[str] = []
    try:
        raw = read_project_config(root)
    except Exception as exc:  # shown, never fatal, before trust
        return [f"{config_file(root)}: {exc}"]
    from swebash_py.text.sanitize import one_line

    for name, server in (raw.get("mcp_servers") or {}).items():
        if isinstance(server, dict):
            what = server.get("url") or " ".join(
                [str(server.get("command", "")), *map(str, server.get("args") or [])])
            lines.append(one_line(f"MCP server {name}: {what}", 160))
    for key in ("allow", "deny"):
        for rule in (raw.get("permissions") or {}).get(key) or []:
            lines.append(one_line(f"{key} rule: {rule}", 160))
    for key in ("pre_tool", "post_tool"):
        for hook in (raw.get("hooks") or {}).get(key) or []:
            lines.append(one_line(f"{key} hook: {hook}", 160))
    commands = root / PROJECT_DIR / "commands"
    if commands.is_dir():
        names = sorted(p.stem for p in commands.glob("*.md"))
        if names:
            lines.append(one_line("commands: " + ", ".join("/" + n for n in names), 160))
    return lines
