"""What a finished turn leaves on screen, kept true and quiet.

Three small facts the terminal renderer needs about the transcript:

* whether a command's result is a failure although the tool did not fail
  (``exit code 1`` is a result the model reads, and a ``✗`` for the user);
* the ``[sandbox: ...]`` note every sandboxed result carries for the model,
  shown on screen once (again only when it changes): the model needs it in
  every result, the user needs it once;
* the usage of one answer: every request of the turn added up into one line.

Stdlib only: the renderer formats what these return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from swebash_py.events import UsageEvent

# The status line ``tools.command.status_line`` ends a command's own output with. The
# last one wins: the command's own output comes first and may print look-alikes.
_STATUS = re.compile(
    r"^\[(?:exit code (-?\d+)|timed out after [^\]]*|killed by signal [^\]]*) · [\d.]+ s\]$",
    re.MULTILINE)
_SANDBOX_NOTE = re.compile(r"^\[sandbox: [^\n]*\]$", re.MULTILINE)


def command_failed(content: str) -> bool:
    """Whether a command's result says it exited non-zero, timed out or was killed."""
    found = list(_STATUS.finditer(content))
    if not found:
        return False
    code = found[-1].group(1)
    return code is None or int(code) != 0


class SandboxNotes:
    """Drops the sandbox note from a result shown on screen when the same note
    was shown before in this process (one process: one session, or one REPL)."""

    last: str | None = None  # class-wide: the REPL builds a renderer per turn

    @classmethod
    def quiet(cls, text: str) -> str:
        """``text`` without a note already shown (the first one stays)."""
        notes = _SANDBOX_NOTE.findall(text)
        if not notes:
            return text
        if notes[-1] != cls.last:
            cls.last = notes[-1]
            return text
        return _SANDBOX_NOTE.sub("", text).replace("\n\n", "\n").strip("\n")


@dataclass
class UsageTally:
    """The requests of one answer, added up."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float | None = 0.0
    requests: int = 0

    def add(self, event: UsageEvent) -> None:
        self.input_tokens += event.input_tokens
        self.output_tokens += event.output_tokens
        self.cached_tokens += event.cache_read_tokens
        self.requests += 1
        # one request of unknown price makes the sum unknown: never a low guess
        self.cost = None if self.cost is None or event.cost is None else self.cost + event.cost

    def line(self) -> str | None:
        """``tokens: 1,234 in (1,000 cached), 56 out · $0.0012``; None before any request."""
        if not self.requests:
            return None
        text = (f"tokens: {self.input_tokens:,} in ({self.cached_tokens:,} cached), "
                f"{self.output_tokens:,} out")
        if self.cost is not None:
            text += f" · ${self.cost:.4f}"
        return text
