"""Through the installed ``ai`` in a pty: approvals that nag less, never weaker.

A preview whose only changes are new plain files the workspace's ``.gitignore``
ignores applies with one line and no question; a secret-named or executable new
file still asks. ``a`` remembers the rule the question showed before the answer:
on ``mkdir b1`` that is ``mkdir:*``, which runs ``mkdir b2`` and not ``mkdir b1;
rm -rf x``. Each wall has its twin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.e2e.test_pty import finish, model_args
from tests.fakeprovider import FakeProvider, Reply
from tests.preview.conftest import needs_overlay
from tests.sandbox.conftest import command_reply

pytestmark = [needs_overlay, pytest.mark.pty]
IMPORT = "python3 -c 'import src.a'"


def python_project(workspace: Path, ignore: str) -> None:
    (workspace / ".gitignore").write_text(ignore)
    (workspace / "src").mkdir()
    (workspace / "src" / "__init__.py").write_text("")
    (workspace / "src" / "a.py").write_text("X = 1\n")


def sent(fake_provider: FakeProvider) -> str:
    ((_id, text, _is_error),) = sent_results(fake_provider.requests[1])
    return str(text)


def run_in_pty(spawn_ai: Any, fake_provider: FakeProvider, command: str) -> pexpect.spawn:
    fake_provider.queue(command_reply(command), Reply(text="all done"))
    return spawn_ai(*model_args(fake_provider), "go")


def test_a_pycache_preview_asks_nothing_and_says_so(fake_provider: FakeProvider,
                                                    spawn_ai: Any, workspace: Path) -> None:
    python_project(workspace, "__pycache__/\n")
    child = run_in_pty(spawn_ai, fake_provider, IMPORT)
    index = child.expect(["without a question", "Allow"])
    assert index == 0, "a question was asked about ignored new files"
    child.expect("all done")
    assert "Allow" not in (child.before or "")
    assert finish(child) == 0
    assert list((workspace / "src" / "__pycache__").glob("a.*.pyc"))
    assert "without a question" in sent(fake_provider)


CRAFT = """\
import importlib.util, marshal, os, sys
st = os.stat("src/a.py")  # the header the importer checks: magic, source mtime, size
stamp = (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
header = importlib.util.MAGIC_NUMBER + bytes(4) + stamp + st.st_size.to_bytes(4, "little")
os.makedirs("src/__pycache__", exist_ok=True)
with open(f"src/__pycache__/a.{sys.implementation.cache_tag}.pyc", "wb") as f:
    f.write(header + marshal.dumps(compile("print('PWNED')", os.path.abspath("src/a.py"), "exec")))
"""


def test_a_crafted_pyc_with_a_matching_header_asks(fake_provider: FakeProvider,
                                                   spawn_ai: Any, workspace: Path) -> None:
    """The wall (twin: the import above): bytecode that is not src/a.py compiled,
    with the header an import trusts, would run at the next unsandboxed import."""
    python_project(workspace, "__pycache__/\n")
    (workspace / "craft.py").write_text(CRAFT)
    child = run_in_pty(spawn_ai, fake_provider, "python3 craft.py")
    child.expect("Allow these changes")
    child.sendline("n")
    child.expect("all done")
    assert finish(child) == 0
    assert not (workspace / "src" / "__pycache__").exists()


def test_the_same_preview_asks_when_gitignore_does_not_ignore_it(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    """The twin: nothing in .gitignore covers __pycache__, so the question stays."""
    python_project(workspace, "build/\n")
    child = run_in_pty(spawn_ai, fake_provider, IMPORT)
    child.expect("Allow these changes")
    child.sendline("n")
    child.expect("all done")
    assert finish(child) == 0
    assert not (workspace / "src" / "__pycache__").exists()


@pytest.mark.parametrize("command", [
    "echo KEY=v > .env",  # ignored, but named like a secret
    "mkdir -p build && printf '#!/bin/sh\\n' > build/run && chmod +x build/run",  # executable
    "mkdir -p build && ln -s /etc/passwd build/link",  # a symlink
    "echo changed >> build/old.txt",  # a modification of an ignored file
])
def test_secrets_executables_links_and_modifications_still_ask(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, command: str) -> None:
    (workspace / ".gitignore").write_text(".env\nbuild/\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "old.txt").write_text("old\n")
    child = run_in_pty(spawn_ai, fake_provider, command)
    child.expect("Allow these changes")
    child.sendline("n")
    child.expect("all done")
    assert finish(child) == 0
    assert not (workspace / ".env").exists() and not (workspace / "build" / "run").exists()
    assert (workspace / "build" / "old.txt").read_text() == "old\n"


def test_a_plain_new_file_under_build_applies_quietly(fake_provider: FakeProvider,
                                                      spawn_ai: Any, workspace: Path) -> None:
    """The twin of the executable: the same file without ``chmod +x``."""
    (workspace / ".gitignore").write_text(".env\nbuild/\n")
    child = run_in_pty(spawn_ai, fake_provider,
                       "mkdir -p build && printf '#!/bin/sh\\n' > build/run")
    assert child.expect(["without a question", "Allow"]) == 0
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "build" / "run").read_text() == "#!/bin/sh\n"


def test_always_on_mkdir_b1_runs_mkdir_b2_and_not_an_added_rm(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    (workspace / "x").mkdir()
    child = run_in_pty(spawn_ai, fake_provider, "mkdir b1")
    child.expect(r"\[a\]lways remembers: run_command\(mkdir:\*\)")  # before the answer
    child.expect("Allow these changes")
    assert not (workspace / "b1").exists()
    child.sendline("a")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "b1").is_dir()

    # no terminal from here on: a question would be a refusal
    fake_provider.requests.clear()
    fake_provider.queue(command_reply("mkdir b2"), Reply(text="ok"))
    result = run_ai(*model_args(fake_provider), "go", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "b2").is_dir(), sent(fake_provider)

    fake_provider.requests.clear()
    fake_provider.queue(command_reply("mkdir b3; rm -rf x"), Reply(text="ok"))
    result = run_ai(*model_args(fake_provider), "go", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "x").is_dir() and not (workspace / "b3").exists()
    assert "no terminal" in sent(fake_provider)
