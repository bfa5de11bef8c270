"""Which calls run as a preview first: only a run_command that would ask, runs
workspace-write, and is not an escalation or a background command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from swebash_py.approvals.decision import PendingCall
from swebash_py.config.settings import Settings
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.preview.policy import preview_mode
from swebash_py.tools.base import Preview, ToolContext
from swebash_py.tools.command import RunCommand
from swebash_py.tools.edit import WriteFile
from tests.preview.conftest import needs_overlay


def pending(tool: Any, **args: Any) -> PendingCall:
    parsed = tool.Args.parse(args)
    return PendingCall(ToolUseBlock("c1", tool.name, "{}"), tool, parsed,
                       tool.preview(parsed, ToolContext(workspace=Path.cwd())))


def settings(**sandbox: Any) -> Settings:
    return Settings.from_data({"sandbox": sandbox})


@needs_overlay
def test_a_command_that_would_ask_previews_first() -> None:
    assert preview_mode(pending(RunCommand(), command="make"), "ask", settings()) == "first"


@needs_overlay
def test_strict_keeps_the_question_and_previews_after() -> None:
    assert preview_mode(pending(RunCommand(), command="make"), "strict", settings()) == "after"


@pytest.mark.parametrize(("args", "config"), [
    ({"command": "make", "escalate": True}, {}),
    ({"command": "make", "background": True}, {}),
    ({"command": "make"}, {"preview": False}),
    ({"command": "make"}, {"mode": "off"}),
    ({"command": "make"}, {"mode": "read-only"}),  # approved commands stay read-only: no apply
], ids=["escalate", "background", "preview-off", "sandbox-off", "read-only"])
def test_no_preview(args: dict[str, Any], config: dict[str, Any]) -> None:
    assert preview_mode(pending(RunCommand(), **args), "ask", settings(**config)) == ""


def test_other_tools_never_preview(tmp_path: Path) -> None:
    call = pending(WriteFile(), path=str(tmp_path / "x"), content="x")
    assert preview_mode(call, "ask", settings()) == ""


def test_preview_is_a_field_of_the_question_only() -> None:
    assert Preview("s").changes is None and Preview("s").output is None
