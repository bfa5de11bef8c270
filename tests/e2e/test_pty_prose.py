"""An answer in a terminal, as a user runs it: the request goes out before the renderer
loads, the renderer (rich, loaded by ``front.warmup`` while the provider thinks) draws it.

The installed `ai` runs a one-shot in a pty (pexpect) with Python's import log on
(``PYTHONPROFILEIMPORTTIME``), stderr appended to a file so the screen stays the
answer's. The fake provider appends a marker line to that same file the moment the
request arrives (both write in append mode, so the order in the file is the order
in time), and holds its reply for a while, as a model's time to first token.
Modules whose import finished before the request arrived are above the marker.
"""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path

import pexpect
import pyte
import pytest
from rich.console import Console

from tests.e2e.conftest import AI, ai_env
from tests.fakeprovider import FakeProvider, Reply

pytestmark = pytest.mark.pty

ROWS, COLS = 20, 60
MARKER = "== the request arrived ==\n"
PROSE = ("Sure. Here is a plain answer that is long enough to wrap at sixty columns, "
         "with a second sentence after it.\n\nA second paragraph. Done.")
MARKDOWN = (PROSE + "\n\nThen **bold**, `code` and a list:\n\n- one\n- two\n\n"
            "```python\nprint('hi')\n```\n")
# What the renderer draws with; each takes well over the moment between the
# warm-up's start and the request's bytes to import.
HEAVY = ("rich.console", "rich.live", "rich.markdown", "rich.syntax", "markdown_it",
         "pygments.lexers", "pydantic")


class Run:
    """One one-shot in a pty: its screen, its stderr (import log and marker), its status."""

    def __init__(self, fp: FakeProvider, tmp_path: Path, reply: Reply, *,
                 interrupt: str | None = None, env: dict[str, str] | None = None) -> None:
        errors = tmp_path / "stderr.txt"
        errors.write_text("")
        held = threading.Event()
        reply.gate = held  # the model's "thinking": released below
        fp.queue(reply)
        _mark_arrivals(fp, errors)
        before = len(fp.requests)
        child = pexpect.spawn("/bin/sh", ["-c", 'exec "$0" "$@" 2>>"$AI_STDERR"', AI,
                                          "-m", "openai/x", "--api-base", fp.url, "q"],
                              cwd=str(tmp_path), encoding="utf-8", timeout=30,
                              dimensions=(ROWS, COLS),
                              env=ai_env({"PYTHONPROFILEIMPORTTIME": "1",
                                          "AI_STDERR": str(errors), "COLUMNS": str(COLS),
                                          "LINES": str(ROWS), **(env or {})}))
        log = io.StringIO()
        child.logfile_read = log
        fp.wait_for_requests(before + 1, timeout=30)
        if interrupt == "waiting":  # Ctrl-C while the warm-up imports and the model thinks
            child.sendcontrol("c")
        elif interrupt == "hangup":
            child.kill(1)  # SIGHUP
        held.set()
        if interrupt and interrupt not in ("waiting", "hangup"):
            child.expect(interrupt)
            child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
        self.stderr = errors.read_text()
        self.status = child.exitstatus if child.exitstatus is not None else 128 + int(
            child.signalstatus)
        self.lines = screen(log.getvalue())
        # the answer's usage line (#29) closes the screen: kept apart from the answer
        self.usage = self.lines.pop() if self.lines and self.lines[-1].startswith(
            "tokens: ") else None
        while self.lines and not self.lines[-1]:
            self.lines.pop()

    def loaded(self, *, before_request: bool) -> set[str]:
        """The modules whose import finished before (or after) the request arrived."""
        head, marker, tail = self.stderr.partition(MARKER)
        assert marker, "the request never arrived"
        return set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)",
                              head if before_request else tail, re.M))


def _mark_arrivals(fp: FakeProvider, log: Path) -> None:
    """Append ``MARKER`` to ``log`` as each request arrives (in the server's thread)."""
    real = fp._next_reply

    def marked(record):  # type: ignore[no-untyped-def]
        with open(log, "a", encoding="utf-8") as out:
            out.write(MARKER)
        return real(record)

    fp._next_reply = marked  # type: ignore[method-assign]


def screen(raw: str) -> list[str]:
    term = pyte.HistoryScreen(COLS, ROWS, history=1000)
    pyte.Stream(term).feed(raw)
    rows = [*term.history.top, *(term.buffer[y] for y in range(ROWS))]
    lines = ["".join(row[x].data for x in range(COLS)).rstrip() for row in rows]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def golden(text: str) -> list[str]:
    """``text`` as rich's own ``Markdown`` draws it at the pty's width, uncoloured
    (with our code blocks: never wrapped or indented)."""
    from tests.render.helpers import RichMarkdown

    console = Console(file=io.StringIO(), width=COLS, color_system=None)
    console.print(RichMarkdown(text))
    lines = [line.rstrip() for line in console.file.getvalue().split("\n")]  # type: ignore[attr-defined]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def test_the_request_goes_out_before_the_renderer_loads(fake_provider: FakeProvider,
                                                        tmp_path: Path) -> None:
    run = Run(fake_provider, tmp_path, Reply(text=MARKDOWN, chunk_size=4))
    assert run.status == 0
    assert "swebash_py.cli.main" in run.loaded(before_request=True)  # the log is read
    assert run.loaded(before_request=True) & set(HEAVY) == set()
    # and the warm-up did load them, after the request (the twin below: before it)
    assert {"rich.console", "rich.markdown", "markdown_it", "pygments.lexers"} <= run.loaded(
        before_request=False)


def test_the_twin_a_heavy_import_before_the_request_is_seen(fake_provider: FakeProvider,
                                                            tmp_path: Path) -> None:
    """The same check, with rich's Markdown imported at start-up (a sitecustomize):
    it is above the marker, so the check above would see it."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import rich.markdown\n")
    run = Run(fake_provider, tmp_path, Reply(text=PROSE, chunk_size=4),
              env={"PYTHONPATH": str(site)})
    assert run.status == 0
    assert {"rich.console", "rich.markdown"} <= run.loaded(before_request=True)


def test_a_markdown_answer_is_drawn_as_rich_draws_it(fake_provider: FakeProvider,
                                                     tmp_path: Path) -> None:
    run = Run(fake_provider, tmp_path, Reply(text=MARKDOWN, chunk_size=4))
    assert run.status == 0
    assert run.lines == golden(MARKDOWN)
    # the twin: rendered, not echoed (the raw text's markup is gone)
    assert run.lines != MARKDOWN.rstrip().split("\n")
    assert "**bold**" not in "\n".join(run.lines) and " • one" in run.lines


def test_a_prose_answer_too(fake_provider: FakeProvider, tmp_path: Path) -> None:
    run = Run(fake_provider, tmp_path, Reply(text=PROSE, chunk_size=4))
    assert run.status == 0
    assert run.lines == golden(PROSE) == [
        "Sure. Here is a plain answer that is long enough to wrap at",
        "sixty columns, with a second sentence after it.", "", "A second paragraph. Done."]
    assert run.usage == "tokens: 10 in (0 cached), 5 out"


def test_ctrl_c_while_the_renderer_loads(fake_provider: FakeProvider, tmp_path: Path) -> None:
    """Ctrl-C with the request out, the warm-up importing and no token yet: 130."""
    run = Run(fake_provider, tmp_path, Reply(text=PROSE, chunk_size=4), interrupt="waiting")
    assert run.status == 130
    assert "interrupted" in run.stderr
    assert "Traceback" not in run.stderr
    assert not any("Ctrl-C to stop" in line for line in run.lines), run.lines  # erased


def test_sighup_while_the_renderer_loads(fake_provider: FakeProvider, tmp_path: Path) -> None:
    run = Run(fake_provider, tmp_path, Reply(text=PROSE, chunk_size=4), interrupt="hangup")
    assert run.status == 129
    assert "Traceback" not in run.stderr


def test_ctrl_c_mid_answer(fake_provider: FakeProvider, tmp_path: Path) -> None:
    words = " ".join(f"word{n}" for n in range(400))
    run = Run(fake_provider, tmp_path, Reply(text="First paragraph.\n\n" + words, chunk_size=6,
                                             delay=0.01), interrupt="word40")
    assert run.status == 130
    assert "interrupted" in run.stderr
    assert run.lines[:2] == ["First paragraph.", ""]
    shown = " ".join(run.lines[2:]).split()
    assert shown == [f"word{n}" for n in range(len(shown) - 1)] + shown[-1:]  # once each
    assert len(shown) > 40


def test_stderr_goes_to_the_file_not_the_screen(fake_provider: FakeProvider,
                                               tmp_path: Path) -> None:
    """The stderr file catches what ``ai`` writes there (the import log): the screen
    holds only the answer."""
    run = Run(fake_provider, tmp_path, Reply(text="Hi.", chunk_size=4))
    assert run.lines == ["Hi."]
    assert "import time:" in run.stderr


def test_piped_the_request_goes_out_before_the_plain_renderer_loads(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    """Output to a pipe: nothing heavy before the request, no rich at all, and the
    answer is the text itself."""
    import subprocess

    errors = tmp_path / "stderr.txt"
    errors.write_text("")
    held = threading.Event()
    fake_provider.queue(Reply(text=MARKDOWN, chunk_size=4, gate=held))
    _mark_arrivals(fake_provider, errors)
    with open(errors, "a", encoding="utf-8") as stderr:
        proc = subprocess.Popen([AI, "-m", "openai/x", "--api-base", fake_provider.url, "q"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr,
                                text=True, cwd=tmp_path,
                                env=ai_env({"PYTHONPROFILEIMPORTTIME": "1"}))
        fake_provider.wait_for_requests(1, timeout=30)
        held.set()
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert out == MARKDOWN  # piped: the answer's text as it came
    head, marker, tail = errors.read_text().partition(MARKER)
    assert marker
    before = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", head, re.M))
    after = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", tail, re.M))
    assert "swebash_py.cli.main" in before
    assert before & set(HEAVY) == set()
    # the plain renderer (stdlib only: it may finish loading before the provider
    # notes the arrival) drew the answer; that rich would be seen: the FORCE_COLOR
    # twin in test_plain_imports_no_rich
    assert "swebash_py.render.plain" in before | after
    assert {m for m in before | after if m.split(".")[0] == "rich"} == set()  # stdlib only
