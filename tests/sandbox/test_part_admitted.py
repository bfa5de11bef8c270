"""Through the installed ``ai``, real bwrap and overlays (issue #27): a command
allow rules admit only in part, the rest only by the read-only command list,
never gets a write from the list's word. ``echo x | sort --outp=F`` under an
``echo *`` rule: the list misjudges ``sort --outp=F`` (an abbreviated
``--output``); it runs as a preview, whose write is shown and asked about (no
terminal: discarded)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fakeprovider import FakeProvider
from tests.preview.conftest import needs_overlay
from tests.sandbox.conftest import attack, needs_bwrap

pytestmark = [needs_bwrap]


def allow(*rules: str) -> None:
    quoted = ", ".join(f'"run_command({r})"' for r in rules)
    Path(os.environ["SWEBASH_CONFIG"]).write_text(f"[permissions]\nallow = [{quoted}]\n")


@needs_overlay
def test_a_misjudged_write_is_previewed_and_discarded_without_a_terminal(
        fake_provider: FakeProvider, workspace: Path) -> None:
    allow("echo *")
    sent, _ = attack(fake_provider, workspace, "echo x | sort --outp=F")
    assert not (workspace / "F").exists()
    assert "changes discarded" in sent and "no terminal" in sent


def test_the_same_misjudged_write_without_previews_runs_read_only(
        fake_provider: FakeProvider, workspace: Path) -> None:
    Path(os.environ["SWEBASH_CONFIG"]).write_text(
        '[permissions]\nallow = ["run_command(echo *)"]\n[sandbox]\npreview = false\n')
    sent, _ = attack(fake_provider, workspace, "echo x | sort --outp=F")
    assert not (workspace / "F").exists()
    assert "Read-only file system" in sent or "read-only" in sent.lower()


def test_a_part_admitted_command_that_writes_nothing_runs_unasked(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """The twin: the same rule, ``echo x | sort``: no question (none could be
    answered here), its output comes back."""
    allow("echo *")
    sent, _ = attack(fake_provider, workspace, "echo x | sort")
    assert sent.startswith("x\n[exit code 0")
    assert "denied" not in sent and "discarded" not in sent


def test_a_command_rules_admit_in_whole_can_write(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """The other twin: rules admit every part, so it runs workspace-write."""
    allow("echo *", "sort *")
    attack(fake_provider, workspace, "echo x | sort --outp=F")
    assert (workspace / "F").read_text() == "x\n"
