"""The REPL in a real terminal: `!cmd` follows resizes, the resume recap is
rendered, `/trust` works on this folder."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_pty import finish, model_args
from tests.fakeprovider import FakeProvider

pytestmark = pytest.mark.pty


def test_bang_command_follows_a_window_resize(fake_provider: FakeProvider,
                                              spawn_ai: Any) -> None:
    child = spawn_ai(*model_args(fake_provider))
    child.expect("swebash>")
    child.sendline("!echo sized-$((1+1)); read x; stty size")
    child.expect("sized-2")  # it runs (and waits for a line)
    child.setwinsize(30, 80)  # the user resizes the window meanwhile
    child.sendline("")
    child.expect(r"\r\n(\d+) (\d+)\r\n")
    assert child.match.groups() == ("30", "80")  # not the 40x100 it started with
    child.expect("swebash>")
    child.sendline("!stty size")  # the next one starts at the new size too
    child.expect(r"\D30 80\r\n")
    child.sendline("/exit")
    assert finish(child) == 0
