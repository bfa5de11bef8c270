"""What the user asked for on the command line, as one value."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Invocation:
    question: str = ""
    model: str | None = None
    api_base: str | None = None
    approval: str | None = None
    json_output: bool = False
    continue_last: bool = False
    session: str | None = None
    no_tools: bool = False
    shell_mode: bool = False
    explain: bool = False
    debug: bool = False
    sandbox: str | None = None
    show_version: bool = False
    show_help: bool = False
    trust: bool = False  # use this folder's .swebash/ settings without asking
    images: list[str] = field(default_factory=list)  # files to attach to the question

    def setting_flags(self) -> dict[str, Any]:
        """The flags that override configuration keys."""
        return {"model": self.model, "api_base": self.api_base, "approval": self.approval,
                "sandbox_mode": self.sandbox}
