"""Through the installed ``ai``, real bwrap and overlays (issue #27): a command
allow rules admit only in part, the rest only by the read-only command list,
never gets a write from the list's word: it runs as a preview (its writes shown
and asked about; no terminal: discarded), else read-only.

``echo x | sort --outp=F`` under an ``echo *`` rule was the audit's case (the
list took ``--outp`` for something other than ``--output``); the list now knows
getopt's abbreviations, so that command asks outright. The structure itself
is tested with ``touch F && ls`` under a ``touch:*`` rule: ``ls`` is admitted
only by the list, so the whole must not get the write the rule alone would."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fakeprovider import FakeProvider
from tests.preview.conftest import needs_overlay
from tests.sandbox.conftest import attack, needs_bwrap

pytestmark = [needs_bwrap]


def config(*rules: str, extra: str = "") -> None:
    quoted = ", ".join(f'"run_command({r})"' for r in rules)
    Path(os.environ["SWEBASH_CONFIG"]).write_text(f"[permissions]\nallow = [{quoted}]\n{extra}")


@needs_overlay
def test_the_audits_sort_write_is_not_made_without_a_question(
        fake_provider: FakeProvider, workspace: Path) -> None:
    config("echo *")
    sent, _ = attack(fake_provider, workspace, "echo x | sort --outp=F")
    assert not (workspace / "F").exists()
    assert "changes discarded" in sent and "no terminal" in sent


@needs_overlay
def test_a_part_admitted_write_is_previewed_and_discarded_without_a_terminal(
        fake_provider: FakeProvider, workspace: Path) -> None:
    config("touch:*")
    sent, _ = attack(fake_provider, workspace, "touch F && ls")
    assert not (workspace / "F").exists()
    assert "changes discarded" in sent and "no terminal" in sent
    assert "partly allowed by run_command(touch:*)" in sent


def test_without_previews_a_part_admitted_command_runs_read_only(
        fake_provider: FakeProvider, workspace: Path) -> None:
    config("touch:*", extra="[sandbox]\npreview = false\n")
    sent, _ = attack(fake_provider, workspace, "touch F && ls")
    assert not (workspace / "F").exists()
    assert "Read-only file system" in sent


def test_a_part_admitted_command_that_writes_nothing_runs_unasked(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """The twin: ``echo x | sort`` under ``echo *``: no question (none could be
    answered here), its output comes back."""
    config("echo *")
    sent, _ = attack(fake_provider, workspace, "echo x | sort")
    assert sent.startswith("x\n[exit code 0")
    assert "denied" not in sent and "discarded" not in sent


def test_a_command_rules_admit_in_whole_can_write(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """The other twin: rules admit every part, so it runs workspace-write."""
    config("touch:*", "ls:*")
    attack(fake_provider, workspace, "touch F && ls")
    assert (workspace / "F").exists()
    config("echo *", "sort *")
    attack(fake_provider, workspace, "echo x | sort --outp=G")
    assert (workspace / "G").read_text() == "x\n"
