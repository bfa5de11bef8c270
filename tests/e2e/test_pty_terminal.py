"""The REPL in a real terminal: `!cmd` follows resizes, the resume recap is
rendered, `/trust` works on this folder."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from swebash_py.project import trust
from tests.e2e.conftest import run_ai
from tests.e2e.test_pty import finish, model_args
from tests.e2e.test_pty_repl_ux import screen
from tests.fakeprovider import FakeProvider, Reply

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


MARKDOWN = ("## Ports in use\n\nPort **8080** is held by `nginx`:\n\n- pid 4242\n\n"
            "```bash\nsudo ss -ltnp | grep 8080\n```\n")


def test_the_resume_recap_is_rendered_like_answers(fake_provider: FakeProvider,
                                                   spawn_ai: Any) -> None:
    fake_provider.queue(Reply(text=MARKDOWN))
    assert run_ai(*model_args(fake_provider), "who holds port 8080?").returncode == 0
    child = spawn_ai("-c", *model_args(fake_provider))
    seen = io.StringIO()
    child.logfile_read = seen
    child.expect("resumed session")
    child.expect("swebash>")
    lines = screen(seen.getvalue())
    start = next(i for i, line in enumerate(lines) if line.startswith("resumed session"))
    assert lines[start + 1:start + 6] == [
        "you who holds port 8080?", "ai  Ports in use", "    Port 8080 is held by nginx:",
        "     • pid 4242", "    sudo ss -ltnp | grep 8080"]  # code: no padding column
    assert not any(mark in line for line in lines for mark in ("##", "**", "`"))
    child.sendline("/exit")
    assert finish(child) == 0


def test_trust_from_the_repl_uses_the_same_store(fake_provider: FakeProvider, spawn_ai: Any,
                                                 workspace: Path) -> None:
    commands = workspace / ".swebash" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("Say hello to $ARGUMENTS")
    trust.remember(workspace, "declined")  # asked before: not asked again
    child = spawn_ai(*model_args(fake_provider))
    child.expect("swebash>")
    child.send("/tru\t")  # completion knows it: it adds "st" (drawn on its own)
    child.expect("st")
    child.sendline("")
    child.expect("declined")
    child.expect("not used in this session")
    child.expect("swebash>")
    child.send("/trust a\t")
    child.expect("dd")
    child.sendline("")
    child.expect(f"trusted {workspace}")
    child.expect("restart to apply it")
    child.expect("swebash>")
    assert trust.answer_for(workspace) == "trusted"  # `ai config trust`'s store
    assert "trusted" in run_ai("config", "trust", "list").stdout
    child.sendline("/help")
    child.expect("/trust")
    child.sendline("/exit")
    assert finish(child) == 0
    fake_provider.queue(Reply(text="Hello!"))
    child = spawn_ai(*model_args(fake_provider))  # the next start uses the folder
    child.expect("swebash>")
    child.sendline("/greet bob")
    child.expect("Hello!")
    assert "Say hello to bob" in json.dumps(fake_provider.requests[0].body)
    child.sendline("/trust revoke")
    child.expect("forgot the answer")
    child.expect("this session still uses")
    child.sendline("/exit")
    assert finish(child) == 0
    assert trust.answer_for(workspace) is None
