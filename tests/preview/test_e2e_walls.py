"""Through the installed ``ai``: a preview is bounded in files as well as bytes,
and never applies settings; each with a twin that applies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import finish, model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply
from tests.preview.conftest import needs_overlay
from tests.preview.test_walls import MANY_FILES
from tests.sandbox.conftest import command_reply

pytestmark = [needs_overlay, pytest.mark.pty]


def result_of(fake_provider: FakeProvider) -> str:
    ((_id, sent, _error),) = sent_results(fake_provider.requests[1])
    return str(sent)


def test_200k_empty_files_stop_the_preview(fake_provider: FakeProvider,
                                           workspace: Path) -> None:
    fake_provider.queue(command_reply(MANY_FILES.format(n=200_000)), Reply(text="ok"))
    result = run_ai(*model_args(fake_provider), "go", cwd=workspace, timeout=120)
    assert result.returncode == 0, result.stderr
    sent = result_of(fake_provider)
    assert "changes discarded" in sent and "preview_max_mb = 1024" in sent
    assert list(workspace.iterdir()) == []  # nothing applied


def test_twin_a_preview_of_100_files_applies(fake_provider: FakeProvider, spawn_ai: Any,
                                             workspace: Path) -> None:
    fake_provider.queue(command_reply(MANY_FILES.format(n=100)), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert len(list(workspace.iterdir())) == 100
    assert "changes applied" in result_of(fake_provider)


def test_a_preview_applies_no_settings(fake_provider: FakeProvider, spawn_ai: Any,
                                       workspace: Path) -> None:
    """``y`` applies ``notes/config.toml`` (the twin) but no ``.swebash``, and the
    result names what was discarded."""
    command = ("mkdir -p .swebash app/.swebash notes; "
               "for d in .swebash app/.swebash notes; do echo x > $d/config.toml; done")
    fake_provider.queue(command_reply(command), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "notes" / "config.toml").read_text() == "x\n"
    assert not (workspace / ".swebash").exists()
    assert not (workspace / "app" / ".swebash").exists()
    sent = result_of(fake_provider)
    assert "discarded the command's changes to settings" in sent and "app/.swebash" in sent
