"""The REPL: /sandbox shows and sets the mode; without a sandbox it says so once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_pty import finish, model_args
from tests.fakeprovider import FakeProvider, Reply
from tests.sandbox.conftest import needs_bwrap
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
