"""Small real tools for loop tests: they record what ran, and when."""

from __future__ import annotations

import asyncio
import time
from typing import ClassVar

from swebash_py.tools.args import ToolArgs
from swebash_py.tools.base import Tool, ToolContext, ToolResult


class Journal:
    """What the tools did, in order, with monotonic timestamps."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, float]] = []
        self.started = asyncio.Event()

    def note(self, what: str, label: str) -> None:
        self.entries.append((what, label, time.monotonic()))
        if what == "start":
            self.started.set()

    def labels(self, what: str) -> list[str]:
        return [label for kind, label, _ in self.entries if kind == what]


class LabelArgs(ToolArgs):
    label: str
    seconds: float = 0.0


class _JournalTool(Tool[LabelArgs]):
    Args = LabelArgs
    journal: Journal

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    async def run(self, args: LabelArgs, ctx: ToolContext) -> ToolResult:
        self.journal.note("start", args.label)
        ctx.progress(f"working on {args.label}\n")
        await asyncio.sleep(args.seconds)
        self.journal.note("end", args.label)
        return ToolResult(f"{self.name} done: {args.label}")


class Peek(_JournalTool):
    name: ClassVar[str] = "peek"
    description: ClassVar[str] = "Read something (read-only)."
    read_only: ClassVar[bool] = True


class Poke(_JournalTool):
    name: ClassVar[str] = "poke"
    description: ClassVar[str] = "Change something (not read-only)."
    read_only: ClassVar[bool] = False


class Boom(_JournalTool):
    name: ClassVar[str] = "boom"
    description: ClassVar[str] = "Always fails."
    read_only: ClassVar[bool] = True

    async def run(self, args: LabelArgs, ctx: ToolContext) -> ToolResult:
        raise RuntimeError(f"kaput {args.label}")


class Big(_JournalTool):
    name: ClassVar[str] = "big"
    description: ClassVar[str] = "Returns a lot of text."
    read_only: ClassVar[bool] = True

    async def run(self, args: LabelArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult("".join(f"line {i}\n" for i in range(20_000)))


class SimpleRegistry:
    def __init__(self, tools: list[Tool]) -> None:  # type: ignore[type-arg]
        self._tools = {t.name: t for t in tools}

    def get(self, name: str) -> Tool | None:  # type: ignore[type-arg]
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def closest(self, name: str) -> str | None:
        import difflib

        found = difflib.get_close_matches(name, self.names(), n=1)
        return found[0] if found else None

    def specs(self) -> list:  # type: ignore[type-arg]
        return [t.spec() for t in self._tools.values()]


def all_tools(journal: Journal) -> SimpleRegistry:
    return SimpleRegistry([Peek(journal), Poke(journal), Boom(journal), Big(journal)])
