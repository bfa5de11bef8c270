"""Names shared by the argument parsers and the config, importable for nothing."""

from typing import Literal, get_args

SUBCOMMANDS = ("config", "sessions", "tools", "doctor", "undo")

ApprovalMode = Literal["strict", "ask", "auto-edit", "yolo"]
APPROVAL_MODES: tuple[str, ...] = get_args(ApprovalMode)

SandboxMode = Literal["auto", "read-only", "workspace-write", "off"]
SANDBOX_MODES: tuple[str, ...] = get_args(SandboxMode)
