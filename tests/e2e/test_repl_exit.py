"""Leaving the REPL does not wait for a module loading in the background (issue #28
item 7: the exit waited for the rest of litellm's import, a steady 1 s and more on a
busy machine). A stub ``litellm`` on the path marks when its import starts and
ends; it ends only once the test releases it."""

from __future__ import annotations

import time
from pathlib import Path

import pexpect

from tests.e2e.conftest import finish

STUB = """
import os, time
marks = {marks!r}
open(os.path.join(marks, "started"), "w").close()
for _ in range(1200):  # until released (at most a minute)
    if os.path.exists(os.path.join(marks, "release")):
        break
    time.sleep(0.05)
open(os.path.join(marks, "finished"), "w").close()
"""


def _stub_litellm(tmp_path: Path) -> tuple[dict[str, str], Path]:
    marks = tmp_path / "marks"
    marks.mkdir()
    package = tmp_path / "stubs" / "litellm"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(STUB.format(marks=str(marks)))
    return {"PYTHONPATH": str(tmp_path / "stubs"), "GEMINI_API_KEY": "x",
            "SWEBASH_WARMUP_TRACE": str(marks / "trace")}, marks


def _repl_with_litellm_loading(spawn_ai: object, env: dict[str, str],
                               marks: Path) -> pexpect.spawn:
    """The REPL on a litellm model, its warm-up through the libraries it loads
    before litellm (then waiting for litellm's import, under way in another thread)."""
    child: pexpect.spawn = spawn_ai("-m", "gemini/x", env=env)  # type: ignore[operator]
    child.expect("/help for commands")
    child.expect("swebash>")
    for _ in range(600):
        trace = marks / "trace"
        if trace.exists() and "markdown_it" in trace.read_text():
            break
        time.sleep(0.05)
    time.sleep(0.5)  # the markdown warm-up after it; then ``litellm`` is next
    assert (marks / "started").exists() and not (marks / "finished").exists()
    return child


def test_leaving_while_litellm_still_loads_does_not_wait_for_it(
        spawn_ai: object, tmp_path: Path) -> None:
    """/exit while the import is under way: the REPL has ended cleanly before the
    import is let go (before, the exit waited for it: up to 10 s)."""
    env, marks = _stub_litellm(tmp_path)
    child = _repl_with_litellm_loading(spawn_ai, env, marks)
    child.sendline("/exit")
    time.sleep(3)  # a process still waiting for the import is still waiting now
    (marks / "release").touch()
    assert finish(child) == 0
    assert not (marks / "finished").exists()


def test_the_twin_an_import_let_go_before_exit_finishes(
        spawn_ai: object, tmp_path: Path) -> None:
    """The marks work: an import released while the REPL is up finishes, and the
    REPL still ends cleanly."""
    env, marks = _stub_litellm(tmp_path)
    child = _repl_with_litellm_loading(spawn_ai, env, marks)
    (marks / "release").touch()
    for _ in range(200):
        if (marks / "finished").exists():
            break
        time.sleep(0.05)
    assert (marks / "finished").exists()
    child.sendline("/exit")
    assert finish(child) == 0
