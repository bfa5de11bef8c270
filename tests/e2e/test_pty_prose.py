"""A prose answer in a terminal is drawn without rich (``cli.tty_text``), as a user runs it.

The installed `ai` runs a one-shot in a pty (pexpect) with Python's import log on
(``PYTHONPROFILEIMPORTTIME``, stderr sent to a file so the screen stays the
answer's). A plain answer loads no ``rich`` module at all and leaves the screen
a rich-drawn one would; the twin, an answer that turns into Markdown, does load
rich (so the check sees it when it is there). Ctrl-C mid-answer still ends with
"interrupted" and exit 130.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pexpect
import pyte
import pytest

from tests.e2e.conftest import AI, ai_env
from tests.fakeprovider import FakeProvider, Reply

pytestmark = pytest.mark.pty

ROWS, COLS = 20, 60
PROSE = ("Sure. Here is a plain answer that is long enough to wrap at sixty columns, "
         "with a second sentence after it.\n\nA second paragraph. Done.")


def one_shot(fp: FakeProvider, tmp_path: Path, reply: Reply,
             interrupt_at: str | None = None) -> tuple[list[str], set[str], str, int]:
    """(the final screen, the modules imported, stderr, the exit status) of a one-shot."""
    fp.queue(reply)
    errors = tmp_path / "stderr.txt"
    child = pexpect.spawn("/bin/sh", ["-c", 'exec "$0" "$@" 2>"$AI_STDERR"', AI,
                                      "-m", "openai/x", "--api-base", fp.url, "q"],
                          cwd=str(tmp_path), encoding="utf-8", timeout=30,
                          dimensions=(ROWS, COLS),
                          env=ai_env({"PYTHONPROFILEIMPORTTIME": "1",
                                      "AI_STDERR": str(errors), "COLUMNS": str(COLS),
                                      "LINES": str(ROWS)}))
    log = io.StringIO()
    child.logfile_read = log
    if interrupt_at:
        child.expect(interrupt_at)
        child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    stderr = errors.read_text()
    modules = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", stderr, re.M))
    return screen(log.getvalue()), modules, stderr, int(child.exitstatus)


def screen(raw: str) -> list[str]:
    term = pyte.HistoryScreen(COLS, ROWS, history=1000)
    pyte.Stream(term).feed(raw)
    rows = [*term.history.top, *(term.buffer[y] for y in range(ROWS))]
    lines = ["".join(row[x].data for x in range(COLS)).rstrip() for row in rows]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def rich_modules(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "rich" or m.startswith("rich.")}


def test_a_prose_answer_loads_no_rich(fake_provider: FakeProvider, tmp_path: Path) -> None:
    lines, modules, _, status = one_shot(fake_provider, tmp_path, Reply(text=PROSE, chunk_size=4))
    assert status == 0
    assert "swebash_py.cli.tty_text" in modules  # the log is read: our modules are in it
    assert rich_modules(modules) == set()
    assert lines == ["Sure. Here is a plain answer that is long enough to wrap at",
                     "sixty columns, with a second sentence after it.", "",
                     "A second paragraph. Done."]


def test_the_twin_turning_into_markdown_loads_rich(fake_provider: FakeProvider,
                                                   tmp_path: Path) -> None:
    text = PROSE + "\n\nThen **bold** and a list:\n\n- one\n- two"
    lines, modules, _, status = one_shot(fake_provider, tmp_path, Reply(text=text, chunk_size=4))
    assert status == 0
    assert {"rich.console", "rich.live"} <= rich_modules(modules)
    assert lines[:4] == ["Sure. Here is a plain answer that is long enough to wrap at",
                         "sixty columns, with a second sentence after it.", "",
                         "A second paragraph. Done."]
    assert lines[4:] == ["", "Then bold and a list:", "", " • one", " • two"]


def test_ctrl_c_mid_answer(fake_provider: FakeProvider, tmp_path: Path) -> None:
    words = " ".join(f"word{n}" for n in range(400))
    lines, modules, stderr, status = one_shot(
        fake_provider, tmp_path, Reply(text="First paragraph.\n\n" + words, chunk_size=6,
                                       delay=0.01), interrupt_at="word40")
    assert status == 130
    assert "interrupted" in stderr
    assert rich_modules(modules) == set()
    assert lines[:2] == ["First paragraph.", ""]
    shown = " ".join(lines[2:]).split()
    assert shown == [f"word{n}" for n in range(len(shown) - 1)] + shown[-1:]  # once each
    assert len(shown) > 40


def test_stderr_goes_to_the_file_not_the_screen(fake_provider: FakeProvider,
                                               tmp_path: Path) -> None:
    """The stderr file catches what ``ai`` writes there (the import log): the screen
    holds only the answer."""
    lines, _, stderr, _ = one_shot(fake_provider, tmp_path, Reply(text="Hi.", chunk_size=4))
    assert lines == ["Hi."]
    assert "import time:" in stderr
