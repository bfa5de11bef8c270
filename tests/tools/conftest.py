"""Fixtures for the tool tests: a tool context on the test workspace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from swebash_py.tools.base import Tool, ToolContext, ToolResult


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes a second or more (real timeouts)")


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace, command_timeout=30.0)


async def call(tool: Tool[Any], ctx: ToolContext, **arguments: Any) -> ToolResult:
    """Validate ``arguments`` as the executor does, then run the tool."""
    return await tool.run(tool.Args.parse(arguments), ctx)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie nobody reaped counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """Live processes in the process group ``pgid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                found.append(int(name))
    return found
