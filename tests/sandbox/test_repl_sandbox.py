"""The REPL: /sandbox shows and sets the mode; without a sandbox it says so once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_pty import finish, model_args
from tests.fakeprovider import FakeProvider, Reply
from tests.sandbox.conftest import command_reply, needs_bwrap
from tests.sandbox.test_doctor import path_without_bwrap

pytestmark = pytest.mark.pty


@needs_bwrap
def test_slash_sandbox_shows_and_sets(fake_provider: FakeProvider, spawn_ai: Any) -> None:
    child = spawn_ai(*model_args(fake_provider))
    child.expect("swebash>")
    child.sendline("/sandbox")
    child.expect(r"sandbox: auto, no network \(bubblewrap")
    child.sendline("/sandbox read-only")
    child.expect("sandbox: read-only")
    child.sendline("/sandbox sideways")
    child.expect("unknown sandbox mode sideways")
    child.sendline("/exit")
    assert finish(child) == 0


def test_no_sandbox_is_said_once(fake_provider: FakeProvider, spawn_ai: Any,
                                 tmp_path: Path) -> None:
    fake_provider.queue(Reply(text="one"), Reply(text="two"))
    child = spawn_ai(*model_args(fake_provider), env={"PATH": path_without_bwrap(tmp_path)})
    child.expect("swebash>")
    child.sendline("first")
    child.expect("no sandbox: bwrap was not found")
    child.expect("one")
    child.sendline("second")
    child.expect("two")
    child.sendline("/exit")
    assert finish(child) == 0
    assert "no sandbox" not in (child.before or "")


@needs_bwrap
@pytest.mark.parametrize("answer", ["y", "a"])
def test_escalation_asks_even_with_yes_and_is_never_standing(
        fake_provider: FakeProvider, spawn_ai: Any, answer: str) -> None:
    marker = Path(f"/tmp/swebash-escalated-{os.getpid()}-{answer}")
    call = command_reply(f"touch {marker}", escalate=True)
    fake_provider.queue(call, Reply(text="done once"), call, Reply(text="done twice"))
    try:
        child = spawn_ai("-y", *model_args(fake_provider), "go")
        child.expect("outside the sandbox")
        child.expect("Allow")
        child.sendline(answer)
        child.expect("done once")
        assert finish(child) == 0
        assert marker.exists()  # it ran outside: the host's /tmp
        marker.unlink()
        again = spawn_ai("-y", *model_args(fake_provider), "go")
        again.expect("outside the sandbox")  # "a" did not make it standing
        again.expect("Allow")
        again.sendline("n")
        again.expect("done twice")
        assert finish(again) == 0
        assert not marker.exists()
    finally:
        marker.unlink(missing_ok=True)
