"""Keys typed at the early plain prompt (before prompt-toolkit takes over) are kept.

In cooked mode Ctrl-C flushed the terminal's input queue, so a Ctrl-D typed
right after it was lost and the REPL sat at its prompt (this failed 6 of 6
times before the early prompt read keys as bytes).
"""

from __future__ import annotations

import time
from typing import Any

import pexpect

from tests.e2e.conftest import model_args
from tests.fakeprovider import FakeProvider


def test_ctrl_c_then_ctrl_d_at_the_early_prompt_exits(fake_provider: FakeProvider,
                                                      spawn_ai: Any) -> None:
    child = spawn_ai(*model_args(fake_provider))
    child.expect("swebash> ")  # the early prompt is drawn first
    child.send("typed\x03\x04")
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    assert child.exitstatus == 0


def test_typed_ahead_then_ctrl_c_and_ctrl_d_later_also_exits(fake_provider: FakeProvider,
                                                             spawn_ai: Any) -> None:
    """Twin at the real prompt: the same keys once prompt-toolkit reads them."""
    child = spawn_ai(*model_args(fake_provider))
    child.expect("swebash> ")
    child.expect("/help for commands")  # the real prompt has taken over
    time.sleep(0.2)
    child.send("typed\x03\x04")
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    assert child.exitstatus == 0
