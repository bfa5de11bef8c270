"""What the audit keeps of one tool call, and the decision label it records.

The executor makes one ``CallRecord`` per call that reached a decision
(allowed and run, or refused), at the point where the decision was made;
the recorder stores it (locally, and the team store's uploader sends it on).
``decision`` is one of the contract's labels:

* ``user-once`` — the user said yes; ``user-always`` — the user said always,
  or a remembered "always" rule allowed it;
* ``rule`` — a configured allow or deny rule, or the mode's default;
* ``yolo`` — allowed by yolo mode; ``hook`` — a pre-tool hook refused it;
* ``denied`` — the user said no (or typed an instruction), or no one could be
  asked; ``discarded`` — a preview's changes were thrown away.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

DecisionLabel = Literal["user-once", "user-always", "rule", "yolo", "hook", "denied",
                        "discarded"]
LABELS: tuple[str, ...] = ("user-once", "user-always", "rule", "yolo", "hook", "denied",
                           "discarded")
_PATH_ARGS = ("path", "url", "query", "pattern")


@dataclass(frozen=True)
class CallRecord:
    """One tool call as the audit keeps it (before redaction)."""

    tool: str
    arguments: dict[str, Any]
    decision: DecisionLabel
    allowed: bool
    exit_code: int | None = None
    duration_ms: int | None = None
    output: str | None = None  # None: the call did not run
    time: float = field(default_factory=time.time)

    @property
    def subject(self) -> str:
        """The command (or path, URL, query); the arguments as JSON otherwise."""
        if isinstance(self.arguments.get("command"), str):
            return str(self.arguments["command"])
        for key in _PATH_ARGS:
            if isinstance(self.arguments.get(key), str):
                return str(self.arguments[key])
        return json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)


def label_for(action: str, by: str, mode: str, label: str = "") -> DecisionLabel:
    """The audit label of a verdict (``label`` when the approver set one)."""
    if label in LABELS:
        return label  # type: ignore[return-value]
    if by == "hook":
        return "hook"
    if by in ("user", "no-terminal"):
        return "user-once" if action == "allow" and by == "user" else "denied"
    if action == "allow" and mode == "yolo" and by == "mode":
        return "yolo"
    return "rule"
