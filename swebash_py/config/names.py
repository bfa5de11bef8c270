"""The approval and sandbox modes: settings values, shared by the argument parser and the REPL."""

from typing import Literal, get_args

ApprovalMode = Literal["strict", "ask", "auto-edit", "yolo"]
APPROVAL_MODES: tuple[str, ...] = get_args(ApprovalMode)

SandboxMode = Literal["auto", "read-only", "workspace-write", "off"]
SANDBOX_MODES: tuple[str, ...] = get_args(SandboxMode)
