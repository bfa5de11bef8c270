"""What a sandbox must enforce for one command, as one value."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Mode = Literal["read-only", "workspace-write", "off"]
ConfiguredMode = Literal["auto", "read-only", "workspace-write", "off"]
Grant = Literal["read", "write", "host"]
MODES: tuple[str, ...] = ("auto", "read-only", "workspace-write", "off")


@dataclass(frozen=True)
class SandboxPolicy:
    """One command's walls. ``hidden`` paths are masked by empty files or
    directories; ``read_only`` paths stay read-only even inside a writable root;
    ``settings_seen`` are the identities of the settings that existed before the
    run and ``guarded`` our own config file (``settings_guard`` removes what a
    run adds)."""

    mode: Mode
    workspace: Path
    writable_roots: tuple[Path, ...] = ()
    network: bool = False
    hidden: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    home: Path = field(default_factory=lambda: Path(os.path.expanduser("~")))
    settings_seen: frozenset[tuple[int, int, int, str]] = frozenset()
    guarded: tuple[Path, ...] = ()

    @property
    def writable(self) -> tuple[Path, ...]:
        """The roots a command may write (none in read-only mode)."""
        if self.mode != "workspace-write":
            return ()
        return (self.workspace, *self.writable_roots)


def effective_mode(configured: str, grant: Grant) -> Mode:
    """THE mapping from the approval's grant to the sandbox mode.

    ``auto``: what ran unasked (``read``) runs read-only; what the user, an
    allow rule or yolo allowed (``write``) runs workspace-write. ``host``
    (an approved escalation or a ``host_allow`` match) runs outside. An
    explicit mode is used as configured.
    """
    if grant == "host" or configured == "off":
        return "off"
    if configured == "auto":
        return "read-only" if grant == "read" else "workspace-write"
    return "workspace-write" if configured == "workspace-write" else "read-only"
